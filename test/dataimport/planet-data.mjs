/** The Planet stub's (./planet-stub.mjs) one valid API key and its PSScene items, shared with the tests. */
export const PLANET_TEST_KEY = "PLAK-test-0123456789abcdef";

export const footprint = {
  type: "Polygon",
  coordinates: [
    [
      [3.0, 50.8],
      [3.05, 50.8],
      [3.05, 50.83],
      [3.0, 50.83],
      [3.0, 50.8],
    ],
  ],
};
/** The stub's PSScene items (acquired, cloud_cover as Planet gives them: 0..1). */
export const PLANET_ITEMS = [
  { id: "20170824_105240_00_1001", acquired: "2017-08-24T10:52:40.000000Z", cloud_cover: 0.01 },
  { id: "20170826_101010_00_1002", acquired: "2017-08-26T10:10:10.000000Z", cloud_cover: 0.4 },
  { id: "20170828_093000_00_1003", acquired: "2017-08-28T09:30:00.000000Z", cloud_cover: 0.05 },
  { id: "20170830_120000_00_1004_bad", acquired: "2017-08-30T12:00:00.000000Z", cloud_cover: 0 },
];
