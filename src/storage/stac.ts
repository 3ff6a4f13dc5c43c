/** The STAC item shapes EO Edge stores and serves (./items.ts writes them to D1, ./scenes.ts finds them). */
/** The subset of a STAC 1.0.0 Item EO Edge relies on. */
export interface StacItem {
  type: "Feature";
  stac_version: string;
  stac_extensions?: string[];
  id: string;
  collection: string;
  geometry: { type: string; coordinates: unknown };
  bbox: number[];
  properties: Record<string, unknown> & { datetime: string };
  links: unknown[];
  assets: Record<string, StacAsset>;
}

/** An item's asset: its href (an R2 key in the DATA bucket, or a URL), media type and bands. */
export interface StacAsset {
  href: string;
  type?: string;
  title?: string;
  roles?: string[];
  "eo:bands"?: { name: string; common_name?: string; center_wavelength?: number; full_width_half_max?: number }[];
  [k: string]: unknown;
}
