/**
 * Result documents of item searches and feature lists: FeatureCollection with titled links (self, root, next in
 * the GET href form or the POST body/merge form), `context` {next, limit, returned, matched}, `numberReturned`,
 * `numberMatched` (when counted) and `timeStamp`.
 */
import type { StacItem } from "../storage/stac";
import { applyFields, type FieldsSpec } from "./fields";
import { CATALOG_TITLE, renderItem, type CatalogUrls } from "./render";

export interface PageLinks {
  /** URL of this request (GET) or of the search endpoint (POST). */
  self: string;
  method: "GET" | "POST";
  /** Extra links (parent collection of a feature list). */
  extra?: Record<string, unknown>[];
}

/** The link to the following page: GET href with `next=`, or POST with body {next} and merge true. */
function nextLink(links: PageLinks, next: number | string): Record<string, unknown> {
  if (links.method === "POST") {
    return {
      rel: "next",
      href: links.self,
      type: "application/geo+json",
      title: "Next set of results",
      method: "POST",
      body: { next },
      merge: true,
    };
  }
  const url = new URL(links.self);
  url.searchParams.set("next", String(next));
  return {
    rel: "next",
    href: url.toString(),
    type: "application/geo+json",
    title: "Next set of results",
    method: "GET",
  };
}

/** One page of results: rendered items or distinct values, the page size, the next token and the match count. */
export interface Page {
  features: unknown[];
  limit: number;
  /** An offset or keyset position (numbers), or an upstream archive's continuation (`a.` strings, federated.ts). */
  next?: number | string;
  /** Items the search matches over all pages (absent when not counted). */
  matched?: number;
}

/** Builds a FeatureCollection page; `withContext` adds the context extension's member (searches). */
export function featureCollection(
  urls: CatalogUrls,
  page: Page,
  links: PageLinks,
  withContext: boolean,
): Record<string, unknown> {
  const { features, limit, next, matched } = page;
  const counted = matched === undefined ? {} : { matched };
  return {
    type: "FeatureCollection",
    features,
    links: [
      { rel: "self", href: links.self, type: "application/geo+json", title: "This page of results" },
      { rel: "root", href: `${urls.root}/`, type: "application/json", title: CATALOG_TITLE },
      ...(links.extra ?? []),
      ...(next === undefined ? [] : [nextLink(links, next)]),
    ],
    ...(withContext
      ? { context: { ...(next === undefined ? {} : { next }), limit, returned: features.length, ...counted } }
      : {}),
    numberReturned: features.length,
    ...(matched === undefined ? {} : { numberMatched: matched }),
    timeStamp: new Date().toISOString(),
  };
}

/** Renders stored items for a response, applying the fields spec. */
export function renderFeatures(
  items: StacItem[],
  urls: CatalogUrls,
  fields: FieldsSpec | undefined,
): Record<string, unknown>[] {
  return items.map((i) => applyFields(renderItem(i, urls), fields));
}
