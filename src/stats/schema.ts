/**
 * zod schema of the Statistical API request (spec "Statistical request (synchronous)"; Sentinel Hub OpenAPI
 * `StatisticalRequest`, `StatisticalRequestAggregation`, `CalculationDefinition`, `HistogramDefinition`,
 * `StatisticsDefinition`). `input` is the Processing API's.
 */
import { z } from "zod";
import { inputSchema } from "../pipeline/input";
import { MAX_SYNC_SIZE } from "../pipeline/plan";
import { INTERPOLATIONS } from "../raster/stats";

/** Most histogram bins per band. */
export const MAX_BINS = 10_000;
/** Most percentiles per band. */
export const MAX_PERCENTILES = 100;

const finite = z.number().finite();
const dateTime = z
  .string({ error: "must be an ISO 8601 date-time, e.g. 2020-06-01T00:00:00Z" })
  .refine((s) => Number.isFinite(Date.parse(s)), "must be an ISO 8601 date-time, e.g. 2020-06-01T00:00:00Z");

export const statisticalTimeRangeSchema = z
  .object({ from: dateTime, to: dateTime }, { error: "aggregation.timeRange needs from and to" })
  .refine((t) => Date.parse(t.from) <= Date.parse(t.to), "timeRange.from must not be after timeRange.to");

export const aggregationIntervalSchema = z.object(
  {
    of: z.string({ error: "aggregationInterval.of is required: an ISO 8601 period such as P1D, P10D or P1M" }),
    lastIntervalBehavior: z
      .enum(["SKIP", "SHORTEN", "EXTEND"], { error: "lastIntervalBehavior must be SKIP, SHORTEN or EXTEND" })
      .default("SKIP"),
  },
  { error: 'aggregation.aggregationInterval is required, e.g. {"of": "P1D"}' },
);

const size = z
  .number()
  .int("must be a whole number of pixels")
  .min(1, "must be at least 1 pixel")
  .max(MAX_SYNC_SIZE, `must be at most ${MAX_SYNC_SIZE} pixels`);

export const aggregationSchema = z
  .object({
    timeRange: statisticalTimeRangeSchema,
    aggregationInterval: aggregationIntervalSchema,
    width: size.optional(),
    height: size.optional(),
    resx: z.number().positive("resx must be > 0").optional(),
    resy: z.number().positive("resy must be > 0").optional(),
    evalscript: z
      .string({ error: "aggregation.evalscript is required: a //VERSION=3 script with a dataMask output" })
      .min(1, "evalscript is empty"),
  })
  .refine(
    (a) => !((a.width !== undefined || a.height !== undefined) && (a.resx !== undefined || a.resy !== undefined)),
    {
      message: "set either width/height or resx/resy, not both",
    },
  );
export type AggregationRequest = z.infer<typeof aggregationSchema>;

const increasing = (xs: number[]) => xs.every((v, i) => i === 0 || v > xs[i - 1]!);

export const histogramSchema = z
  .object({
    nBins: z
      .number()
      .int("nBins must be a whole number")
      .min(1, "nBins must be at least 1")
      .max(MAX_BINS, `nBins must be at most ${MAX_BINS}`)
      .optional(),
    binWidth: z.number().positive("binWidth must be > 0").optional(),
    lowEdge: finite.optional(),
    highEdge: finite.optional(),
    bins: z
      .array(finite)
      .min(2, "bins needs at least 2 edges")
      .max(MAX_BINS + 1, `bins may have at most ${MAX_BINS + 1} edges`)
      .refine(increasing, "bins must be strictly increasing edges, e.g. [0, 0.2, 0.5, 1]")
      .optional(),
  })
  .refine((h) => [h.nBins, h.binWidth, h.bins].filter((v) => v !== undefined).length === 1, {
    message: "a histogram needs exactly one of nBins, binWidth or bins",
  })
  .refine((h) => h.lowEdge === undefined || h.highEdge === undefined || h.lowEdge < h.highEdge, {
    message: "lowEdge must be less than highEdge",
  })
  .refine(
    (h) =>
      !(
        h.binWidth &&
        h.lowEdge !== undefined &&
        h.highEdge !== undefined &&
        (h.highEdge - h.lowEdge) / h.binWidth > MAX_BINS
      ),
    {
      message: `binWidth gives more than ${MAX_BINS} bins between lowEdge and highEdge; use a wider binWidth`,
    },
  );
export type HistogramRequest = z.infer<typeof histogramSchema>;

export const statisticsSchema = z.object({
  percentiles: z
    .object({
      k: z
        .array(finite.min(0, "percentiles must be between 0 and 100").max(100, "percentiles must be between 0 and 100"))
        .min(1, "percentiles.k needs at least one percentile, e.g. [25, 50, 75]")
        .max(MAX_PERCENTILES, `at most ${MAX_PERCENTILES} percentiles per band`),
      interpolation: z
        .enum(INTERPOLATIONS, { error: `interpolation must be one of ${INTERPOLATIONS.join(", ")}` })
        .default("higher"),
    })
    .optional(),
});
export type StatisticsRequest = z.infer<typeof statisticsSchema>;

export const calculationSchema = z.object({
  histograms: z.record(z.string(), histogramSchema).optional(),
  statistics: z.record(z.string(), statisticsSchema).optional(),
});
export type CalculationRequest = z.infer<typeof calculationSchema>;

export const statisticalRequestSchema = z.object({
  input: inputSchema,
  aggregation: aggregationSchema,
  calculations: z.record(z.string(), calculationSchema).optional(),
});
export type StatisticalRequest = z.infer<typeof statisticalRequestSchema>;
