/** Types of ./planet-data.mjs. */
export declare const PLANET_TEST_KEY: string;
export declare const footprint: { type: "Polygon"; coordinates: number[][][] };
export declare const PLANET_ITEMS: { id: string; acquired: string; cloud_cover: number }[];
