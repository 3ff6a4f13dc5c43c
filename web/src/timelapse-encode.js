// Encoders of the console's time-lapse (timelapse.js): an animated GIF with gifenc (PnnQuant palette per frame,
// LZW), and MP4 / WebM video with the browser's WebCodecs VideoEncoder muxed by mp4-muxer / webm-muxer. Codecs are
// tried in order and the first one VideoEncoder.isConfigSupported accepts is used: MP4 H.264 (Constrained Baseline,
// the lowest level that fits the frame; Debian's Chromium 156 encodes it with OpenH264), else VP9 in MP4 (ISO BMFF
// binding of VP9); WebM VP9, else VP8.
import { applyPalette, GIFEncoder, quantize } from "gifenc";
import { ArrayBufferTarget as Mp4Target, Muxer as Mp4Muxer } from "mp4-muxer";
import { ArrayBufferTarget as WebmTarget, Muxer as WebmMuxer } from "webm-muxer";

/**
 * Writer of an animated GIF looping forever, each frame shown 1/`fps` s: add() appends the pixels now on the canvas
 * of context `g`, reduced to a 256-colour palette of their own (gifenc quantize, rgb565); finish() returns the Blob
 * (image/gif); abort() drops it.
 */
export function gifWriter(g, fps) {
  const { width, height } = g.canvas;
  const gif = GIFEncoder();
  return {
    add() {
      const rgba = g.getImageData(0, 0, width, height).data;
      const palette = quantize(rgba, 256);
      gif.writeFrame(applyPalette(rgba, palette), width, height, { palette, delay: 1000 / fps, repeat: 0 });
    },
    async finish() {
      gif.finish();
      return new Blob([gif.bytes()], { type: "image/gif" });
    },
    abort() {},
  };
}

/** H.264 Constrained Baseline codec strings from the smallest level up: [codec, most 16x16 macroblocks a frame]. */
const AVC_LEVELS = [
  ["avc1.42E01E", 1620], // level 3.0
  ["avc1.42E01F", 3600], // 3.1
  ["avc1.42E028", 8192], // 4.0
  ["avc1.42E032", 22080], // 5.0
  ["avc1.42E033", 36864], // 5.1
];

/**
 * The codecs to try for `format` at `width` x `height`: [{codec (WebCodecs string), muxer (the muxer's name for
 * it), name}], in order of preference.
 */
function candidates(format, width, height) {
  const vp9 = "vp09.00.40.08"; // profile 0, level 4.0, 8 bits
  if (format === "webm")
    return [
      { codec: vp9, muxer: "V_VP9", name: "VP9" },
      { codec: "vp8", muxer: "V_VP8", name: "VP8" },
    ];
  const mbs = Math.ceil(width / 16) * Math.ceil(height / 16);
  const avc = AVC_LEVELS.find(([, max]) => mbs <= max)?.[0];
  return [...(avc ? [{ codec: avc, muxer: "avc", name: "H.264" }] : []), { codec: vp9, muxer: "vp9", name: "VP9" }];
}

/** The VideoEncoder configuration of `codec` for `canvas` at `fps`: a bitrate generous for stills (3 bits/px/s). */
const encoderConfig = (codec, { width, height }, fps) => ({
  codec,
  width,
  height,
  framerate: fps,
  bitrate: Math.max(500_000, Math.round(width * height * 3 * Math.max(1, fps / 2))),
  ...(codec.startsWith("avc1") ? { avc: { format: "avc" } } : {}),
});

/**
 * The first of candidates(format, ...) the browser's VideoEncoder takes for `canvas` at `fps`. Throws an Error
 * naming the other formats when WebCodecs is missing (an insecure page: it needs https or localhost) or no codec is.
 */
async function chooseCodec(canvas, fps, format) {
  if (typeof VideoEncoder === "undefined")
    throw new Error(
      `This browser has no WebCodecs video encoder here (it needs a secure page: https or localhost): export a GIF instead of ${format.toUpperCase()}.`,
    );
  const list = candidates(format, canvas.width, canvas.height);
  for (const c of list)
    if ((await VideoEncoder.isConfigSupported(encoderConfig(c.codec, canvas, fps)).catch(() => ({}))).supported)
      return c;
  const other = format === "mp4" ? "WebM or GIF" : "MP4 or GIF";
  throw new Error(
    `This browser cannot encode ${format.toUpperCase()} video at ${canvas.width}x${canvas.height} (${list.map((c) => c.name).join(", ")} unsupported): export ${other} instead.`,
  );
}

/**
 * Writer of a video in `format` "mp4" or "webm" (codecs above) of `canvas` (even sides), each frame shown 1/`fps`
 * s: add() encodes the pixels now on the canvas; finish() resolves to the Blob (video/mp4 or video/webm), throwing
 * when the encoder failed; abort() drops it. A WebM holds the last frame twice, the second at the end time. Throws
 * as chooseCodec when the browser cannot encode `format`.
 */
export async function videoWriter(canvas, fps, format) {
  const chosen = await chooseCodec(canvas, fps, format);
  // mp4-muxer takes only a whole frame rate (it sets the track's timescale); the timestamps are exact without it
  const frameRate = format === "webm" || Number.isInteger(fps) ? { frameRate: fps } : {};
  const video = { codec: chosen.muxer, width: canvas.width, height: canvas.height, ...frameRate };
  const muxer =
    format === "mp4"
      ? new Mp4Muxer({ target: new Mp4Target(), video, fastStart: "in-memory" })
      : new WebmMuxer({ target: new WebmTarget(), video });
  let failure = null,
    count = 0;
  const encoder = new VideoEncoder({
    output: (chunk, meta) => muxer.addVideoChunk(chunk, meta),
    error: (e) => (failure = e),
  });
  encoder.configure(encoderConfig(chosen.codec, canvas, fps));
  const step = 1e6 / fps; // µs
  const add = () => {
    if (failure || encoder.state === "closed") return;
    const frame = new VideoFrame(canvas, { timestamp: Math.round(count * step), duration: Math.round(step) });
    encoder.encode(frame, { keyFrame: count % 30 === 0 });
    frame.close();
    count++;
  };
  return {
    add,
    async finish() {
      // WebM blocks carry no duration (the file ends at the last frame's start, so players would cut the last
      // frame short): there the last frame is sent once more, at the end time
      if (format === "webm") add();
      await encoder.flush().catch((e) => (failure ??= e));
      if (encoder.state !== "closed") encoder.close();
      if (failure) throw new Error(`${chosen.name} encoding failed: ${failure.message ?? failure}`);
      muxer.finalize();
      return new Blob([muxer.target.buffer], { type: format === "mp4" ? "video/mp4" : "video/webm" });
    },
    abort() {
      if (encoder.state !== "closed") encoder.close();
    },
  };
}
