/**
 * The descriptions of the API's operations in the OpenAPI document (./document.ts), keyed by the operation's summary
 * (RouteMeta.summary, given where each area registers its routes: aliases share it, and so their description). One
 * table here instead of strings beside every route, so that the areas' route files stay about routing.
 * A route's own RouteMeta.description takes precedence (the admin API's shared note).
 * test/openapi/document.test.ts requires a description for every operation: a new or renamed summary needs one here.
 * (The third-party data import entries are for the routes of src/dataimport.)
 */
export const DESCRIPTIONS: Readonly<Record<string, string>> = {
  "A delivery file's bytes (Range; HEAD gives its size)":
    "The bytes of one delivered file; `Range` answers 206. Deprecated by Sentinel Hub (third-party data import): answers carry Deprecation and Sunset headers.",
  "A delivery tile":
    "One BYOC tile of the delivery: path, status, sensing time. Deprecated by Sentinel Hub (third-party data import): answers carry Deprecation and Sunset headers.",
  "A product's thumbnail":
    "A preview image of one product of a provider's collection. Deprecated by Sentinel Hub (third-party data import): answers carry Deprecation and Sunset headers.",
  "A tile file's bytes (Range supported; HEAD gives its size)":
    "The bytes of one of the tile's files; `Range` answers 206.",
  "Access token (client credentials grant)":
    'OAuth 2.0 client credentials grant (RFC 6749 4.4): send `grant_type=client_credentials` with `client_id` and `client_secret` in the form or as HTTP Basic. Answers `{access_token, token_type: "Bearer", expires_in}`; send the token as `Authorization: Bearer <token>` to every other operation. Errors follow RFC 6749 5.2 (`{error, error_description}`).',
  "Active OAuth clients":
    "The account's OAuth clients that can get tokens: client id, name, creation and expiry. Secrets are never listed.",
  "Add a layer": "Adds a layer (`id`, `title`, styles with evalscripts, datasource defaults) to the instance.",
  "An item's asset (HTTP Range supported)":
    "The bytes of one asset of an item (e.g. a band's GeoTIFF), from the service's object storage. `Range: bytes=a-b` answers 206 with that part (for COG readers such as GDAL's /vsicurl/).",
  "Analyse a task":
    "Starts the analysis of a CREATED task: a batch task counts the grid tiles (or GeoPackage features) over its AOI, a statistical batch task reads the features of its GeoPackage; both estimate the processing units. The status goes ANALYSING, then ANALYSIS_DONE. 204 at once; poll the task. 409 (`COMMON_CONFLICT`) when the task's status does not allow it.",
  "Arrays of a Zarr collection": "The arrays of the store: name, dtype, shape, chunks, fill value, dimensions.",
  "Cancel a running subscription":
    "Cancels a running subscription: no further products are delivered; deliveries already made stay. Deprecated by Sentinel Hub (third-party data import): answers carry Deprecation and Sunset headers.",
  "Confirm a order (charges the quota, starts it)":
    "Confirms the quoted order: the import quota is charged and its products are delivered into the target BYOC collection. Deprecated by Sentinel Hub (third-party data import): answers carry Deprecation and Sunset headers.",
  "Confirm a subscription (charges the quota, starts it)":
    "Confirms the quoted subscription: the import quota is charged and its products are delivered into the target BYOC collection. Deprecated by Sentinel Hub (third-party data import): answers carry Deprecation and Sunset headers.",
  "Conformance classes":
    "The STAC API and OGC API - Features conformance classes this catalog implements (core, item search, filter with CQL2, fields, sort, query, features).",
  "Conformance classes (alias)":
    "The same list as `/conformance`, under the path sentinelhub-py's catalog client also asks for.",
  "Copy ingested tiles to another collection (toCollection)":
    "Copies the ingested tiles' records to another collection of the account (`toCollection`).",
  "Create a BYOC collection":
    "Bring Your Own COG: creates a collection (`name`, `s3Bucket`, optional `additionalData.bands`) whose tiles are Cloud Optimized GeoTIFFs in the account's bucket. Its id (`byoc-<id>` as a Process `input.data.type`) is usable once a tile is ingested.",
  "Create a WMS instance":
    "Creates an instance with `name` and `layers` (each: `id`, `title`, `styles[].evalScript`, `datasourceDefaults` with the collection `type`, time range, mosaicking order). Answers 201 with its id.",
  "Create a batch task":
    "Batch Processing v2: stores a task (status CREATED) that will run `processRequest` over a tiling grid (`input.type: tiling-grid`, grid id and resolution) or the tiles of a GeoPackage, writing each tile's outputs to `output.delivery.s3.url` (`<tileName>`, `<outputId>`, `<format>` placeholders) or to a Zarr store. Analyse it, then start it. 403 when the bucket is another account's; 400 when the body sets `status`.",
  "Create a order (not confirmed: a quote)":
    "Creates a order of third-party products (provider, collection, AOI or item ids): it is a quote (CREATED, with the area and the quota it would use) until confirmed. Deprecated by Sentinel Hub (third-party data import): answers carry Deprecation and Sunset headers.",
  "Create a statistical batch task":
    "Statistical Batch API: stores a task that computes the Statistical API's aggregation for every feature of a GeoPackage (`input.features.s3.url`) and writes one JSON file per feature id to `output.s3.url`. Analyse, then start it. 400 when the body sets `status`.",
  "Create a subscription (not confirmed: a quote)":
    "Creates a subscription of third-party products (provider, collection, AOI or item ids): it is a quote (CREATED, with the area and the quota it would use) until confirmed. Deprecated by Sentinel Hub (third-party data import): answers carry Deprecation and Sunset headers.",
  "Create a tile (its files are ingested on the queue)":
    "Adds a tile: `path` in the bucket (with a `(BAND)` placeholder for one file per band), optional `sensingTime` and `coverGeometry`. The COG headers are read on the queue: the status goes WAITING, then INGESTED or FAILED (with `additionalData.failedIngestionCause`).",
  "Create an OAuth client (the secret is shown once)":
    "Creates an OAuth client of the account: `name`, and `expires` (RFC 3339, in the future) or `neverExpire: true` with `confirmNeverExpireRisk: true`. The answer carries `clientSecret` once; it cannot be read again.",
  "Create an S3 endpoint key (the secret is shown once)":
    "Creates an access key id and secret for the S3 endpoint (AWS CLI, boto3, GDAL /vsis3/). The secret is in this answer only.",
  "Delete a BYOC collection": "Deletes the collection and its tiles' records (the COGs stay in the bucket).",
  "Delete a WMS instance": "Deletes the instance: its OGC URLs answer 404 from then on.",
  "Delete a Zarr collection": "Unregisters the collection (the store's objects stay in the bucket).",
  "Delete a layer": "Removes one layer of an instance: it leaves the instance's WMS and WMTS capabilities.",
  "Delete a order":
    "Deletes a order that is not running (it then appears only with `deleted=true`). Deprecated by Sentinel Hub (third-party data import): answers carry Deprecation and Sunset headers.",
  "Delete a subscription":
    "Deletes a subscription that is not running (it then appears only with `deleted=true`). Deprecated by Sentinel Hub (third-party data import): answers carry Deprecation and Sunset headers.",
  "Delete a tile": "Removes a tile from the collection (its files stay in the bucket).",
  "Delete an OAuth client":
    "Deletes a client: it can no longer get tokens (tokens already issued stay valid until they expire). It moves to the inactive list.",
  "Delete an S3 endpoint key": "Deletes an S3 endpoint key: requests signed with it are refused from then on.",
  "Expired and deleted OAuth clients":
    "The account's clients that can no longer get tokens (expired or deleted), with when that happened.",
  "Get a BYOC collection": "One BYOC collection with its bands and the extent of its ingested tiles.",
  "Get a delivery":
    "One delivery: its products, status and the BYOC tiles it created. Deprecated by Sentinel Hub (third-party data import): answers carry Deprecation and Sunset headers.",
  "Get a order":
    "One order of the account: its request, status, area and quota used. Deprecated by Sentinel Hub (third-party data import): answers carry Deprecation and Sunset headers.",
  "Get a subscription":
    "One subscription of the account: its request, status, area and quota used. Deprecated by Sentinel Hub (third-party data import): answers carry Deprecation and Sunset headers.",
  "Get a tile": "One tile: path, status, sensing time, cover geometry, and the failure cause when ingestion failed.",
  "Import quota of one collection":
    "The account's import quota for one third-party collection: the area (km\u00b2) allowed and used. Deprecated by Sentinel Hub (third-party data import): answers carry Deprecation and Sunset headers.",
  "Import quotas of every collection":
    "The account's import quotas per third-party collection: the area (km\u00b2) allowed and used. Deprecated by Sentinel Hub (third-party data import): answers carry Deprecation and Sunset headers.",
  "Ingest a tile again": "Puts the tile back on the ingestion queue (after its files were fixed).",
  "Items of a collection (OGC API Features)":
    "The collection's items (scenes) as a GeoJSON FeatureCollection, filtered by `bbox`, `datetime` (RFC 3339 instant or interval), `filter`; paged with `limit` and the `next` link.",
  "JSON Web Key Set of the token signing key":
    "The public keys (JWKS, RFC 7517) that verify the access tokens' RS256 signatures, retired keys included until their tokens expire.",
  "Layers of an instance": "The layers of an instance (each a WMS/WMTS layer of its GetCapabilities).",
  "List WMS instances":
    "The account's OGC configuration instances (Sentinel Hub Configuration API): id, name and layers. The id is the credential of the public `/ogc/wms/{id}` and `/ogc/wmts/{id}` URLs.",
  "List Zarr collections": "The account's Zarr collections with their ingestion state.",
  "List a collection's tiles (count, viewtoken, sort, path, status)":
    "The collection's tiles with their status, sensing time and cover geometry; filter by `path` or `status`.",
  "List a delivery's files":
    "The files of a delivery (the provider's products as delivered), with their sizes. Deprecated by Sentinel Hub (third-party data import): answers carry Deprecation and Sunset headers.",
  "List a tile's files": "The files the tile's path resolves to (one per band with `(BAND)`), with their sizes.",
  "List batch tasks":
    "The account's batch tasks, newest first: `count` (at most 100), `viewtoken` for the next page, `search` on description and id, `sort`. Each with status, progress (`completionPercentage`) and cost (`costPU`, `costMC`).",
  "List collections":
    "The data collections of the catalog at this location (Sentinel-2 L1C/L2A, Sentinel-1 GRD, the account's BYOC collections...) with their spatial and temporal extents, bands (`eo:bands`) and links.",
  "List statistical batch tasks":
    "The account's statistical batch tasks with status, `completionPercentage` and cost (`costPU`, `costMC`); `count`, `viewtoken` paging.",
  "List the account's BYOC collections (count, viewtoken, search)":
    "The account's BYOC collections: id, name, bucket, bands (after the first ingestion) and extent.",
  "List the locations":
    "The deployment's locations (Sentinel Hub's `aws-eu-central-1`, `creo`, ...): id, name, base URL and the data collections each one hosts. Send a collection's requests to the location that hosts it.",
  "List the tiling grids":
    "The tiling grids of batch tasks (`input.type: tiling-grid`): id, name, tile size, allowed resolutions and the CRS of their tiles (UTM zones, LAEA, WGS84).",
  "Metadata of a data collection type (bands, location)":
    "A collection type (e.g. `sentinel-2-l2a`, `byoc-<id>`): its bands with units and sample types, and the location that hosts it.",
  "OGC WMS 1.1.1 and 1.3.0: GetCapabilities (version negotiation), GetMap (KVP query; the instance id is the credential)":
    "OGC WMS: `SERVICE=WMS&REQUEST=GetCapabilities` lists the instance's layers (add this URL in QGIS, GDAL `WMS:<url>` or OWSLib); `REQUEST=GetMap` with LAYERS, BBOX, CRS (1.3.0) or SRS (1.1.1), WIDTH, HEIGHT, FORMAT, TIME renders the layer's evalscript. Errors are ServiceExceptionReport XML. No token: the instance id is the credential.",
  "OGC WMTS 1.0.0 and XYZ tiles: GetCapabilities, GetTile (KVP query)":
    "OGC WMTS 1.0.0: `REQUEST=GetCapabilities`, and `REQUEST=GetTile` with LAYER, TILEMATRIXSET (PopularWebMercator256 or 512), TILEMATRIX, TILEROW, TILECOL, FORMAT, TIME: the z/x/y tiles web maps (Leaflet, OpenLayers) use. No token: the instance id is the credential.",
  "One OAuth client": "One client of the account, without its secret. 404 for another account's client.",
  "One WMS instance": "One instance with its layers. 404 for another account's instance.",
  "One Zarr collection": "One Zarr collection: store location, CRS, envelope, time axis and the arrays (bands).",
  "One array": "One array of a Zarr collection: dtype, shape, chunks, fill value and dimensions.",
  "One batch task":
    "One batch task: its request, status (CREATED, ANALYSING, ANALYSIS_DONE, PROCESSING, DONE, FAILED, STOPPED, PARTIAL), tile counts, `completionPercentage`, estimated and used processing units (`costPU`, `costMC`). Secret keys of delivery descriptors are never returned. 404 for another account's task.",
  "One collection":
    "One STAC collection: extent, bands, summaries and links to its items and queryables. 404 for an unknown id.",
  "One item":
    "One STAC item (a scene): geometry, acquisition `datetime`, properties such as `eo:cloud_cover`, and its assets.",
  "One layer": "One layer of an instance: its title, styles (evalscripts) and datasource defaults.",
  "One location": "One location by id: its base URL and the collections it hosts. 404 for an unknown id.",
  "One statistical batch task":
    "One statistical batch task: its request, status, progress, `costPU`, `costMC` and `workspaceId`. Secret keys of descriptors are never returned. 404 for another account's task.",
  "One tiling grid":
    "One tiling grid by id (0: UTM 20 km, 1: UTM 10 km, 2: UTM 100 km, 3: WGS84 1 degree, 6: LAEA 100 km, 7: LAEA 20 km): tile size, unit and allowed resolutions.",
  "OpenID Provider configuration":
    "OpenID Connect discovery document: issuer, token endpoint, JWKS URI and the supported grant type (client_credentials).",
  "Query orders (status, collectionId, count, viewtoken, search, deleted)":
    "The account's orders, filtered by status or target collection, with paging (`count`, `viewtoken`) and search. Deprecated by Sentinel Hub (third-party data import): answers carry Deprecation and Sunset headers.",
  "Query subscriptions (status, collectionId, count, viewtoken, search, deleted)":
    "The account's subscriptions, filtered by status or target collection, with paging (`count`, `viewtoken`) and search. Deprecated by Sentinel Hub (third-party data import): answers carry Deprecation and Sunset headers.",
  "Queryables of a collection (JSON Schema)":
    "The properties of this collection's items that `filter` can use (e.g. `eo:cloud_cover`, `sat:orbit_state`), as a JSON Schema.",
  "Queryables of the item search (JSON Schema)":
    "The properties the item search can filter on with `filter` (CQL2 text or JSON), as a JSON Schema (OGC API - Features Part 3).",
  "Re-read the Zarr store's metadata": "Reads the store's metadata again (after arrays or time steps were added).",
  "Register a Zarr collection":
    "Registers a Zarr v2/v3 store in a bucket (`s3.bucket`, `s3.path`) as a collection: its arrays become the bands evalscripts read. The metadata is read at once (ingestion state).",
  "Rename a Zarr collection": "Changes the collection's name (the store and its arrays stay as they are).",
  "Render an evalscript over a bbox or geometry":
    "Sentinel Hub Processing API: runs the evalscript (`//VERSION=3`, `setup()` + `evaluatePixel()`) over `input.bounds` (bbox or GeoJSON geometry in `properties.crs`) for `input.data` (collection, time range, mosaicking order, filters) and answers the image of `output` (`width`/`height` or `resx`/`resy`, at most 2500 px a side) in each response's format: PNG, JPEG, GeoTIFF (FLOAT32 with `sampleType`), or a tar/multipart of several outputs with `userdata.json`. Processing units are charged by area, bands and outputs.",
  "Replace a WMS instance": "Replaces the instance's name and layers.",
  "Replace a layer":
    "Replaces one layer of an instance (title, styles, datasource defaults); its OGC URLs serve the new definition at once.",
  "Request a zip archive of the delivery":
    "Starts building a zip archive of the delivery's files; poll its status, then download it. Deprecated by Sentinel Hub (third-party data import): answers carry Deprecation and Sunset headers.",
  "STAC landing page":
    "STAC API 1.0.0 landing page: links to the conformance classes, the collections, the item search, this OpenAPI document (`service-desc`) and its HTML rendering (`service-doc`).",
  "Search a provider's products (process-like query; count, viewtoken)":
    "Searches a third-party provider's catalogue with a Process-like query (`provider`, `bounds`, `data` with time range and filters); paged with `count` and `viewtoken`. Deprecated by Sentinel Hub (third-party data import): answers carry Deprecation and Sunset headers.",
  "Search items (JSON body)":
    "STAC item search with a JSON body: the same fields as the GET search, plus `filter-lang: cql2-json`, `query` and `distinct`. What sentinelhub-py's `SentinelHubCatalog.search` sends.",
  "Search items (query parameters)":
    "STAC item search with query parameters: `collections`, `bbox`, `intersects`, `datetime`, `ids`, `filter` (CQL2 text), `sortby`, `fields`, `limit`; answers a GeoJSON FeatureCollection with `next` links.",
  "Search with the provider's own query (passed on unchanged)":
    "Searches a provider with its own native query body, passed on unchanged. Deprecated by Sentinel Hub (third-party data import): answers carry Deprecation and Sunset headers.",
  "Start a task":
    "Starts processing an analysed task (a CREATED one is analysed first): tiles (batch) or features (statistical batch) are processed on the queue and the status goes PROCESSING, then DONE, FAILED, or for a statistical batch task with failed features PARTIAL. Processing units are charged as they are processed. 204 at once; poll the task. 409 (`COMMON_CONFLICT`) when the task's status does not allow it.",
  "Statistics of an evalscript's outputs over a geometry and time intervals":
    "Sentinel Hub Statistical API: evaluates the evalscript for each `aggregation.aggregationInterval` (ISO 8601 duration, e.g. `P10D`) in `aggregation.timeRange` over `input.bounds` at `resx`/`resy` (at most 2500 x 2500 px), masks pixels with the `dataMask` output, and answers per interval and output band: min, max, mean, stDev, sampleCount, noDataCount, optional percentiles and histograms. Intervals without data have no `outputs` (or an `error`).",
  "Status of a running async request":
    "The status of an async request (RUNNING, DONE, FAILED) and its cost; 404 once it finished long ago or for another account's request.",
  "Status of a statistical batch task":
    "Only the status fields of a task (status, completionPercentage, costPU, costMC, error), for polling.",
  "Status of the delivery's archive":
    "Whether the delivery's zip archive is being built, DONE or FAILED. Deprecated by Sentinel Hub (third-party data import): answers carry Deprecation and Sunset headers.",
  "Stop a task":
    "Asks a running or analysed task to stop; tiles or feature results already written stay. The status becomes STOPPED. 204; 409 (`COMMON_CONFLICT`) when the task has already ended.",
  "Stop a task (alias of stop)": "The same as `/stop`: cancels a running statistical batch task.",
  "Submit an asynchronous Process request (outputs written to object storage)":
    "Asynchronous Processing API: takes a Process request (larger outputs allowed, up to 10000 px a side) and `output.delivery.s3.url`; answers 202 with the request id and status, renders in the background and writes the outputs to the bucket.",
  "The account's S3 endpoint keys (without secrets)":
    "The access key ids of the account's keys for the S3-compatible endpoint (AWS Signature V4), without secrets.",
  "The account: plan, rate-limit policies, processing units":
    "The caller's account (`me` or its id): name, plan, the rate-limit policies in force and the processing units used and left.",
  "The delivery's BYOC tiles (last 3 months)":
    "The BYOC tiles the delivery created in the target collection (kept for 3 months). Deprecated by Sentinel Hub (third-party data import): answers carry Deprecation and Sunset headers.",
  "The delivery's archive (DONE only; Range; HEAD gives its size)":
    "The zip archive of the delivery's files once it is DONE; `Range` answers 206. Deprecated by Sentinel Hub (third-party data import): answers carry Deprecation and Sunset headers.",
  "The order's deliveries (status, count, viewtoken)":
    "The deliveries of a order (one per delivered product or batch of products) with their status. Deprecated by Sentinel Hub (third-party data import): answers carry Deprecation and Sunset headers.",
  "The subscription's deliveries (status, count, viewtoken)":
    "The deliveries of a subscription (one per delivered product or batch of products) with their status. Deprecated by Sentinel Hub (third-party data import): answers carry Deprecation and Sunset headers.",
  "This OpenAPI 3.1 description":
    "This document: every operation of the service with its parameters and request schemas, generated from the route table. Rendered at `/docs.html`.",
  "This OpenAPI 3.1 description (STAC service-desc alias)":
    "The same document at the STAC landing page's `service-desc` link.",
  "Update a BYOC collection": "Changes the collection's name or band definitions.",
  "Update a batch task's description":
    "Changes the task's `description` (the only field that can change after creation).",
  "Update a tile": "Changes a tile's sensing time or cover geometry.",
};
