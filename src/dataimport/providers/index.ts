/** The providers by API name (`provider` member) and by thumbnail collection id. */
import { badRequest, notFound } from "../../http/errors";
import type { Provider } from "./provider";
import { planetProvider } from "./planet";
import { sampleProvider } from "./sample";

export type { Provider, ProviderContext, ProductFile, SearchPage, PageAsk } from "./provider";
export { DeliveryError } from "./provider";

const PROVIDERS: readonly Provider[] = [planetProvider, sampleProvider];

/** The provider named `name`. @throws ApiError 400 naming the known ones. */
export function providerOf(name: string): Provider {
  const p = PROVIDERS.find((x) => x.name === name);
  if (!p)
    throw badRequest(`Unknown provider '${name.slice(0, 40)}': one of ${PROVIDERS.map((x) => x.name).join(", ")}.`, {
      provider: "unknown provider",
    });
  return p;
}

/** The provider of thumbnail collection `collectionId`. @throws ApiError 404 naming the known ones. */
export function thumbnailProvider(collectionId: string): Provider {
  const p = PROVIDERS.find((x) => x.thumbnailCollections.includes(collectionId));
  if (!p)
    throw notFound(
      `Unknown collection '${collectionId.slice(0, 40)}': one of ${PROVIDERS.flatMap((x) => x.thumbnailCollections).join(", ")}.`,
    );
  return p;
}
