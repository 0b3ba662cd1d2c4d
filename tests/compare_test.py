#!/usr/bin/env python3
"""End-to-end tests of `blobsim compare` against independent computations.

    tests/compare_test.py BLOBSIM [NAME ...]

Every test image is made here, by a PNG writer in pure Python (zlib + struct, no libpng), so the
loader is checked against bytes it did not write. The metrics are checked against:
  - ImageMagick's `compare` (Debian package imagemagick; called as /usr/bin/compare and
    /usr/bin/convert, and refused unless `compare -version` says ImageMagick): PSNR, MAE and AE with
    -fuzz, on 8-bit opaque RGB images, where its definitions and ours agree (docs/compare.md);
  - an SSIM written here in pure Python straight from Wang et al. 2004 (a 2-D 11x11 Gaussian window
    evaluated directly, not separated; luminance 0.299 R + 0.587 G + 0.114 B; valid windows only);
  - exact values from the formulas: identical images, a one-pixel change, a uniform offset.
A missing ImageMagick is a failure, not a skip. NAME runs some tests only.
"""
import json
import math
import os
import random
import struct
import subprocess
import sys
import tempfile
import zlib

BLOBSIM = None
TMP = None
IM_COMPARE = "/usr/bin/compare"
IM_CONVERT = "/usr/bin/convert"


class Failure(Exception):
    pass


def ensure(cond, message):
    if not cond:
        raise Failure(message)


def close(a, b, tol, what):
    ensure(abs(a - b) <= tol, f"{what}: {a!r} vs {b!r} (tolerance {tol})")


# ---- A PNG writer (pure Python) ----------------------------------------------------------------

def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_bytes(width, height, color_type, bit_depth, samples, palette=None, trns=None,
              ihdr=None):
    """A PNG of `samples` (a flat list, row-major, channel-interleaved, in the bit depth's range).
    color_type: 0 gray, 2 RGB, 3 palette, 4 gray+alpha, 6 RGBA. ihdr: raw IHDR bytes to claim."""
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[color_type]
    raw = bytearray()
    per_row = width * channels
    for y in range(height):
        raw.append(0)  # filter: none
        row = samples[y * per_row:(y + 1) * per_row]
        if bit_depth == 16:
            for v in row:
                raw += struct.pack(">H", v)
        elif bit_depth == 8:
            raw += bytes(row)
        else:  # 1, 2, 4 bits, packed from the most significant bit
            bits = 0
            nbits = 0
            for v in row:
                bits = (bits << bit_depth) | v
                nbits += bit_depth
                if nbits == 8:
                    raw.append(bits)
                    bits = nbits = 0
            if nbits:
                raw.append(bits << (8 - nbits))
    head = ihdr if ihdr is not None else struct.pack(">IIBBBBB", width, height, bit_depth,
                                                      color_type, 0, 0, 0)
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head)
    if palette is not None:
        out += chunk(b"PLTE", b"".join(bytes(c) for c in palette))
    if trns is not None:
        out += chunk(b"tRNS", trns)
    out += chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b"")
    return out


class Image:
    """8-bit RGB, a flat list of width * height * 3 samples."""

    def __init__(self, width, height, rgb):
        self.width, self.height, self.rgb = width, height, list(rgb)

    def px(self, x, y):
        i = 3 * (y * self.width + x)
        return self.rgb[i:i + 3]


def write(name, data):
    path = os.path.join(TMP, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def write_rgb(name, img):
    return write(name, png_bytes(img.width, img.height, 2, 8, img.rgb))


def textured(width, height, seed, lo=0, hi=255):
    """Smooth structure plus noise: something SSIM has structure to measure."""
    rng = random.Random(seed)
    rgb = []
    for y in range(height):
        for x in range(width):
            base = 0.5 + 0.5 * math.sin(x / 3.1 + seed) * math.cos(y / 4.3)
            for c in range(3):
                v = lo + (hi - lo) * (0.8 * base + 0.2 * rng.random()) + 10 * c
                rgb.append(max(lo, min(hi, int(v))))
    return Image(width, height, rgb)


def noisy(img, seed, amplitude):
    rng = random.Random(seed)
    return Image(img.width, img.height,
                 [max(0, min(255, v + rng.randint(-amplitude, amplitude))) for v in img.rgb])


# ---- Independent references ----------------------------------------------------------------------

def ssim_reference(a, b):
    """Mean SSIM over the valid 11x11 windows of the luminance, as Wang et al. 2004 define it."""
    def lum(img):
        return [0.299 * img.rgb[3 * i] + 0.587 * img.rgb[3 * i + 1] + 0.114 * img.rgb[3 * i + 2]
                for i in range(img.width * img.height)]
    ya, yb = lum(a), lum(b)
    w, h = a.width, a.height
    if w < 11 or h < 11:
        return None
    win = [[math.exp(-((i - 5) ** 2 + (j - 5) ** 2) / (2 * 1.5 ** 2)) for i in range(11)]
           for j in range(11)]
    total = sum(sum(r) for r in win)
    win = [[v / total for v in r] for r in win]
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    values = []
    for y0 in range(h - 10):
        for x0 in range(w - 10):
            mx = my = sxx = syy = sxy = 0.0
            for j in range(11):
                row = (y0 + j) * w + x0
                for i in range(11):
                    g = win[j][i]
                    va, vb = ya[row + i], yb[row + i]
                    mx += g * va
                    my += g * vb
                    sxx += g * va * va
                    syy += g * vb * vb
                    sxy += g * va * vb
            vx, vy, cxy = sxx - mx * mx, syy - my * my, sxy - mx * my
            values.append((2 * mx * my + c1) * (2 * cxy + c2) /
                          ((mx * mx + my * my + c1) * (vx + vy + c2)))
    return sum(values) / len(values)


def imagemagick_ok():
    try:
        out = subprocess.run([IM_COMPARE, "-version"], capture_output=True, text=True).stdout
    except OSError:
        return False
    return "ImageMagick" in out


def im_metric(metric, a, b, *extra):
    """ImageMagick's compare: the metric's first number (it prints on stderr, exit 1 when different)."""
    r = subprocess.run([IM_COMPARE, "-precision", "17", "-metric", metric, *extra, a, b, "null:"],
                       capture_output=True, text=True)
    ensure(r.returncode in (0, 1), f"ImageMagick compare failed: {r.stderr}")
    return r.stderr.split()


def im_metrics(a, b, threshold):
    """PSNR (dB), MAE (0..255) and the count of pixels over `threshold`, by ImageMagick (Q16):
    its MAE's normalised value (in parentheses) is our MAE / 255; its AE with -fuzz F counts pixels
    where some channel's |difference| >= F in quantum units (65535 = 255 * 257), so our
    "d > threshold" is its -fuzz (threshold + 0.5) * 257."""
    psnr_text = im_metric("PSNR", a, b)[0]
    psnr = math.inf if psnr_text == "inf" else float(psnr_text)
    mae = float(im_metric("MAE", a, b)[1].strip("()")) * 255
    over = int(float(im_metric("AE", a, b, "-fuzz", str((threshold + 0.5) * 257))[0]))
    return psnr, mae, over


def blobsim(*args):
    try:
        return subprocess.run([BLOBSIM, "compare", *args], capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        raise Failure(f"compare {' '.join(args)}: no answer in 20 s (waiting on a FIFO?)")


def metrics(a, b, *extra):
    r = blobsim(a, b, "--json", *extra)
    ensure(r.returncode in (0, 1), f"compare {a} {b}: exit {r.returncode}: {r.stderr}")
    return json.loads(r.stdout)


def exact_metrics(a, b, threshold):
    """MSE, MAE, max difference and pixels over threshold straight from the samples."""
    n = a.width * a.height
    d = [abs(p - q) for p, q in zip(a.rgb, b.rgb)]
    per_pixel = [max(d[3 * i:3 * i + 3]) for i in range(n)]
    return (sum(v * v for v in d) / (3 * n), sum(d) / (3 * n), max(d),
            sum(1 for v in per_pixel if v > threshold))


# ---- The tests -----------------------------------------------------------------------------------

def test_identical():
    a = textured(24, 20, 1)
    pa = write_rgb("id_a.png", a)
    pb = write_rgb("id_b.png", a)
    m = metrics(pa, pb)
    ensure(m["identical"] is True, "identical images: identical is not true")
    ensure(m["psnr"] is None, f"identical images: psnr {m['psnr']}, expected null")
    ensure(m["ssim"] == 1.0, f"identical images: ssim {m['ssim']}, expected exactly 1")
    ensure(m["mae"] == 0 and m["max_diff"] == 0 and m["pixels_over"] == 0, "identical: nonzero diffs")
    r = blobsim(pa, pb, "--min-psnr", "99", "--min-ssim", "1", "--max-diff", "0")
    ensure(r.returncode == 0, f"identical images must pass any limit: exit {r.returncode}")
    ensure("psnr       inf" in r.stdout, "text output: psnr of identical images is not 'inf'")
    psnr, mae, over = im_metrics(pa, pb, 0)
    ensure(psnr == math.inf and mae == 0 and over == 0, f"ImageMagick: {psnr} {mae} {over}")


def test_one_pixel():
    w, h, delta = 30, 20, 40
    a = textured(w, h, 2, 50, 200)
    b = Image(w, h, a.rgb)
    b.rgb[3 * (7 * w + 11) + 1] += delta  # one green sample
    pa, pb = write_rgb("one_a.png", a), write_rgb("one_b.png", b)
    m = metrics(pa, pb)
    close(m["psnr"], 10 * math.log10(255 ** 2 * 3 * w * h / delta ** 2), 1e-12, "one pixel: PSNR")
    close(m["mse"], delta ** 2 / (3 * w * h), 1e-15, "one pixel: MSE")
    close(m["mae"], delta / (3 * w * h), 1e-15, "one pixel: MAE")
    ensure(m["max_diff"] == delta and m["pixels_over"] == 1, f"one pixel: {m}")
    close(m["fraction_over"], 1 / (w * h), 1e-15, "one pixel: fraction")
    close(m["ssim"], ssim_reference(a, b), 1e-9, "one pixel: SSIM against the Python reference")
    ensure(metrics(pa, pb, "--threshold", str(delta - 1))["pixels_over"] == 1, "threshold delta-1")
    ensure(metrics(pa, pb, "--threshold", str(delta))["pixels_over"] == 0, "threshold delta")
    psnr, mae, over = im_metrics(pa, pb, 0)
    close(m["psnr"], psnr, 1e-9, "one pixel: PSNR against ImageMagick")
    close(m["mae"], mae, 1e-9, "one pixel: MAE against ImageMagick")
    ensure(over == 1, f"one pixel: ImageMagick AE {over}")


def test_offset():
    k = 7
    # Uniform image: SSIM has a closed form (the means shift by k, the variances stay 0).
    v = 100
    flat_a = Image(16, 16, [v] * (16 * 16 * 3))
    flat_b = Image(16, 16, [v + k] * (16 * 16 * 3))
    m = metrics(write_rgb("flat_a.png", flat_a), write_rgb("flat_b.png", flat_b))
    c1 = (0.01 * 255) ** 2
    close(m["psnr"], 20 * math.log10(255 / k), 1e-12, "offset: PSNR = 20 log10(255/k)")
    close(m["ssim"], (2 * v * (v + k) + c1) / (v * v + (v + k) ** 2 + c1), 1e-12, "flat offset: SSIM")
    # Textured image (no clipping: 20 ... 200 + k): same PSNR, SSIM by the reference.
    a = textured(32, 24, 3, 20, 200)
    b = Image(a.width, a.height, [s + k for s in a.rgb])
    pa, pb = write_rgb("off_a.png", a), write_rgb("off_b.png", b)
    m = metrics(pa, pb)
    close(m["psnr"], 20 * math.log10(255 / k), 1e-12, "textured offset: PSNR")
    ensure(m["mae"] == k and m["max_diff"] == k, f"textured offset: {m}")
    close(m["ssim"], ssim_reference(a, b), 1e-9, "textured offset: SSIM against the Python reference")
    psnr, mae, over = im_metrics(pa, pb, k - 1)
    close(m["psnr"], psnr, 1e-9, "offset: PSNR against ImageMagick")
    close(mae, k, 1e-9, "offset: ImageMagick MAE")
    ensure(over == a.width * a.height, f"offset: ImageMagick AE {over}")


def test_noise():
    """Random noise of several amplitudes and thresholds: ImageMagick, the formulas, Python SSIM."""
    worst = {"psnr": 0.0, "mae": 0.0, "ssim": 0.0}
    for seed, amplitude, threshold in [(4, 3, 0), (5, 20, 5), (6, 60, 30), (7, 128, 100)]:
        a = textured(40, 32, seed)
        b = noisy(a, seed + 100, amplitude)
        pa, pb = write_rgb(f"noise{seed}_a.png", a), write_rgb(f"noise{seed}_b.png", b)
        m = metrics(pa, pb, "--threshold", str(threshold))
        mse, mae, maxd, over = exact_metrics(a, b, threshold)
        close(m["mse"], mse, 1e-12 * max(1, mse), f"noise {amplitude}: MSE")
        close(m["mae"], mae, 1e-12 * max(1, mae), f"noise {amplitude}: MAE")
        ensure(m["max_diff"] == maxd and m["pixels_over"] == over, f"noise {amplitude}: {m}")
        im_psnr, im_mae, im_over = im_metrics(pa, pb, threshold)
        close(m["psnr"], im_psnr, 1e-9, f"noise {amplitude}: PSNR against ImageMagick")
        close(m["mae"], im_mae, 1e-9, f"noise {amplitude}: MAE against ImageMagick")
        ensure(m["pixels_over"] == im_over, f"noise {amplitude}: over {m['pixels_over']}, "
               f"ImageMagick AE -fuzz {(threshold + 0.5) * 257}: {im_over}")
        ref = ssim_reference(a, b)
        close(m["ssim"], ref, 1e-9, f"noise {amplitude}: SSIM against the Python reference")
        worst["psnr"] = max(worst["psnr"], abs(m["psnr"] - im_psnr))
        worst["mae"] = max(worst["mae"], abs(m["mae"] - im_mae))
        worst["ssim"] = max(worst["ssim"], abs(m["ssim"] - ref))
    print(f"  noise: largest deviation: PSNR {worst['psnr']:.3g} dB and MAE {worst['mae']:.3g} "
          f"from ImageMagick, SSIM {worst['ssim']:.3g} from the Python reference")


def composite(samples, channels, alpha_max, to8):
    """Expected opaque RGB of gray/gray+alpha/RGB/RGBA samples: 8-bit, over black."""
    out = []
    for i in range(0, len(samples), channels):
        px = [to8(v) for v in samples[i:i + channels]]
        if channels in (2, 4):
            a = px[-1]
            px = [(c * a + 127) // 255 for c in px[:-1]]
        if len(px) == 1:
            px = px * 3
        out += px
    return out


def test_formats():
    """Every PNG variant loads as the 8-bit opaque RGB computed here."""
    w, h = 13, 11
    rng = random.Random(9)
    to8_16 = lambda v: (v * 255 + 32767) // 65535  # round(v * 255 / 65535)
    cases = []
    for depth in (1, 2, 4, 8, 16):
        top = (1 << depth) - 1
        s = [rng.randint(0, top) for _ in range(w * h)]
        scale = lambda v, top=top: v * 255 // top  # exact for 1, 2, 4, 8 bits (255 / top integer)
        cases.append((f"gray{depth}", png_bytes(w, h, 0, depth, s),
                      composite(s, 1, top, to8_16 if depth == 16 else scale)))
    for depth in (8, 16):
        top = (1 << depth) - 1
        to8 = to8_16 if depth == 16 else (lambda v: v)
        for ct, ch, name in ((4, 2, "grayalpha"), (2, 3, "rgb"), (6, 4, "rgba")):
            s = [rng.randint(0, top) for _ in range(w * h * ch)]
            cases.append((f"{name}{depth}", png_bytes(w, h, ct, depth, s), composite(s, ch, top, to8)))
    palette = [(rng.randint(0, 255), rng.randint(0, 255), rng.randint(0, 255)) for _ in range(16)]
    idx = [rng.randint(0, 15) for _ in range(w * h)]
    cases.append(("palette8", png_bytes(w, h, 3, 8, idx, palette=palette),
                  [c for i in idx for c in palette[i]]))
    alphas = [rng.randint(0, 255) for _ in range(16)]
    cases.append(("palette8trns", png_bytes(w, h, 3, 8, idx, palette=palette, trns=bytes(alphas)),
                  [(c * alphas[i] + 127) // 255 for i in idx for c in palette[i]]))
    idx4 = [i % 16 for i in idx]
    cases.append(("palette4", png_bytes(w, h, 3, 4, idx4, palette=palette),
                  [c for i in idx4 for c in palette[i]]))
    g = [rng.randint(0, 255) for _ in range(w * h)]
    cases.append(("gray8trns", png_bytes(w, h, 0, 8, g, trns=struct.pack(">H", g[0])),
                  [0 if v == g[0] else v for v in g for _ in range(3)]))
    for name, data, expected in cases:
        p = write(f"fmt_{name}.png", data)
        e = write_rgb(f"fmt_{name}_expected.png", Image(w, h, expected))
        m = metrics(p, e)
        ensure(m["identical"] and m["width"] == w and m["height"] == h,
               f"{name}: not read as expected: max_diff {m['max_diff']}, {m['pixels_over']} pixels differ")
    # Interlaced (Adam7), written by ImageMagick.
    a = textured(23, 17, 10)
    pa = write_rgb("plain.png", a)
    pi = os.path.join(TMP, "interlaced.png")
    subprocess.run([IM_CONVERT, pa, "-interlace", "PNG", pi], check=True)
    ensure(open(pi, "rb").read()[28] == 1, "ImageMagick did not write an interlaced PNG")
    ensure(metrics(pa, pi)["identical"], "interlaced PNG not read as the plain one")
    print(f"  formats: {len(cases) + 1} PNG variants read as expected")


def heat_reference(d):
    stops = [(64, 64, 255), (0, 255, 255), (0, 255, 0), (255, 255, 0), (255, 0, 0)]
    if d == 0:
        return (0, 0, 0)
    u = 4 * (1.0 if d >= 255 else math.log2(d) / math.log2(255))
    i = min(3, int(u))
    f = u - i
    return tuple(int(math.floor(stops[i][c] + f * (stops[i + 1][c] - stops[i][c]) + 0.5))
                 for c in range(3))


def test_heatmap():
    w, h = 16, 16
    a = Image(w, h, [128] * (w * h * 3))
    b = Image(w, h, list(a.rgb))
    for i in range(w * h):  # pixel i differs by d = i in its blue channel (0 ... 255)
        b.rgb[3 * i + 2] = (128 + i) if i < 128 else 128 - (i - 127)
    diffs = [abs(b.rgb[3 * i + 2] - 128) for i in range(w * h)]
    pa, pb = write_rgb("heat_a.png", a), write_rgb("heat_b.png", b)
    heat = os.path.join(TMP, "heat.png")
    r = blobsim(pa, pb, "--diff", heat)
    ensure(r.returncode == 0, f"--diff: exit {r.returncode}: {r.stderr}")
    raw = subprocess.run([IM_CONVERT, heat, "-depth", "8", "rgb:-"], capture_output=True,
                         check=True).stdout
    ensure(len(raw) == w * h * 3, "heatmap size")
    for i, d in enumerate(diffs):
        got = tuple(raw[3 * i:3 * i + 3])
        exp = heat_reference(d)
        ensure(max(abs(p - q) for p, q in zip(got, exp)) <= 1, f"heatmap d={d}: {got}, expected {exp}")
    ensure(tuple(raw[0:3]) == (0, 0, 0), "heatmap: an equal pixel is not black")
    ensure(not [f for f in os.listdir(TMP) if ".tmp." in f], "temporary file left behind")


def test_limits():
    a = textured(20, 20, 11)
    b = noisy(a, 12, 10)
    pa, pb = write_rgb("lim_a.png", a), write_rgb("lim_b.png", b)
    m = metrics(pa, pb, "--threshold", "5")
    for args, expected in [
        ([], 0),
        (["--min-psnr", str(m["psnr"] - 0.01)], 0), (["--min-psnr", str(m["psnr"] + 0.01)], 1),
        (["--min-ssim", str(m["ssim"] - 1e-4)], 0), (["--min-ssim", str(m["ssim"] + 1e-4)], 1),
        (["--max-diff", str(m["max_diff"])], 0), (["--max-diff", str(m["max_diff"] - 1)], 1),
        (["--max-mae", str(m["mae"] + 1e-3)], 0), (["--max-mae", str(m["mae"] - 1e-3)], 1),
        (["--max-fraction", str(m["fraction_over"] + 1e-4)], 0),
        (["--max-fraction", str(m["fraction_over"] - 1e-4)], 1),
    ]:
        r = blobsim(pa, pb, "--threshold", "5", *args)
        ensure(r.returncode == expected, f"{args}: exit {r.returncode}, expected {expected}\n{r.stdout}")
        ensure(("result     fail" in r.stdout) == (expected == 1), f"{args}: result line\n{r.stdout}")
        j = json.loads(blobsim(pa, pb, "--threshold", "5", "--json", *args).stdout)
        ensure(j["pass"] == (expected == 0) and len(j["failures"]) == expected, f"{args}: JSON {j}")
    # SSIM is undefined below 11x11: null in JSON, and --min-ssim then fails.
    small = textured(10, 12, 13)
    ps = write_rgb("small.png", small)
    ps2 = write_rgb("small2.png", noisy(small, 1, 5))
    ensure(metrics(ps, ps2)["ssim"] is None, "10x12: ssim not null")
    r = blobsim(ps, ps2, "--min-ssim", "0")
    ensure(r.returncode == 1 and "undefined" in r.stdout, f"10x12 --min-ssim: {r.returncode} {r.stdout}")


def test_bad_inputs():
    good = write_rgb("good.png", textured(12, 12, 14))
    other = write_rgb("other.png", textured(12, 13, 15))
    data = open(good, "rb").read()
    ihdr_end = 8 + 8 + 13 + 4
    idat_data = ihdr_end + 8 + 5
    fifo = os.path.join(TMP, "fifo.png")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)

    def claims(name, width, height, depth):
        """A 1x1 RGB PNG whose (valid-CRC) IHDR claims another size or bit depth."""
        head = struct.pack(">IIBBBBB", width, height, depth, 2, 0, 0, 0)
        return write(name, png_bytes(1, 1, 2, 8, [0, 0, 0], ihdr=head))

    def corrupt(at):
        d = bytearray(data)
        d[at] ^= 0x55
        return bytes(d)
    cases = [
        ("sizes", other, f"cannot compare images of different sizes: {good} is 12x12 but {other} is 12x13"),
        ("missing", os.path.join(TMP, "missing.png"), "missing.png: cannot open: No such file or directory"),
        ("text", write("text.png", b"this is not an image\n"), "text.png: not a PNG file (no PNG signature)"),
        ("empty", write("empty.png", b""), "empty.png: not a PNG file (the file is empty)"),
        ("signature-only", write("sig.png", data[:8]), "sig.png: truncated PNG (unexpected end of file)"),
        ("truncated-header", write("trunc1.png", data[:20]),
         "trunc1.png: truncated PNG (unexpected end of file)"),
        ("truncated-data", write("trunc2.png", data[:idat_data + 10]),
         "trunc2.png: truncated PNG (unexpected end of file)"),
        ("truncated-end", write("trunc3.png", data[:-6]), "trunc3.png: truncated PNG (unexpected end of file)"),
        ("crc", write("crc.png", corrupt(20)), "crc.png: corrupt PNG: IHDR: CRC error"),
        ("zlib", write("zlib.png", corrupt(idat_data + 2)), "zlib.png: corrupt PNG: "),
        ("huge", claims("huge.png", 100000, 100000, 8),
         "huge.png: image of 100000x100000 pixels is too large (at most 65535 pixels a side and 67108864 in all)"),
        ("huge-product", claims("huge2.png", 65535, 65535, 8), "huge2.png: image of 65535x65535 pixels is too large"),
        ("zero-width", claims("zero.png", 0, 1, 8), "zero.png: corrupt PNG: "),
        ("bad-depth", claims("depth.png", 1, 1, 3), "depth.png: corrupt PNG: "),
        ("directory", TMP, f"{TMP}: cannot read: it is a directory, not a PNG file"),
        # Refused at once, in either position: a FIFO with no writer, a device without end.
        ("fifo", fifo, f"{fifo}: not a regular file"),
        ("dev-zero", "/dev/zero", "/dev/zero: not a regular file"),
    ]
    for name, path, message in cases:
        for first, second in ((good, path), (path, good)) if name != "sizes" else ((good, path),):
            r = blobsim(first, second, "--json")
            ensure(r.returncode == 3, f"{name}: exit {r.returncode}, expected 3 (error); stderr {r.stderr}")
            ensure(r.stdout == "", f"{name}: printed {r.stdout!r}")
            ensure(r.stderr.startswith("blobsim: ") and message in r.stderr and r.stderr.count("\n") == 1,
                   f"{name}: stderr {r.stderr!r}, expected to contain {message!r}")
    # A heatmap that cannot be written: exit 3, the message names it, nothing is left behind.
    r = blobsim(good, good, "--diff", os.path.join(TMP, "no", "such", "dir", "h.png"))
    ensure(r.returncode == 3 and "h.png" in r.stderr, f"unwritable heatmap: {r.returncode} {r.stderr}")
    # Usage errors: exit 2.
    for args in ([good], [good, good, good], [good, good, "--threshold", "256"],
                 [good, good, "--min-ssim", "abc"], [good, good, "--max-fraction", "2"],
                 [good, good, "--no-such-option"], [good, good, "--diff"]):
        r = blobsim(*args)
        ensure(r.returncode == 2, f"{args}: exit {r.returncode}, expected 2 (usage)")
    # Truncations and single-byte corruptions of a valid file through the command (test_image.c tries
    # many more in-process): an answer, never a crash.
    for n in range(0, len(data), 4):
        r = subprocess.run([BLOBSIM, "compare", good, write("cut.png", data[:n])], capture_output=True)
        ensure(r.returncode == 3, f"truncated to {n} bytes: exit {r.returncode}")
    for at in range(8, len(data), 7):
        r = subprocess.run([BLOBSIM, "compare", good, write("flip.png", corrupt(at))], capture_output=True)
        ensure(r.returncode in (0, 3), f"byte {at} corrupted: exit {r.returncode} {r.stderr}")


TESTS = {
    "identical": test_identical,
    "one-pixel": test_one_pixel,
    "offset": test_offset,
    "noise": test_noise,
    "formats": test_formats,
    "heatmap": test_heatmap,
    "limits": test_limits,
    "bad-inputs": test_bad_inputs,
}


def main():
    global BLOBSIM, TMP
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    BLOBSIM = os.path.abspath(sys.argv[1])
    names = sys.argv[2:] or list(TESTS)
    if not imagemagick_ok():
        print(f"FAIL: ImageMagick is needed ({IM_COMPARE} -version must say ImageMagick): "
              "apt-get install imagemagick (tools/test installs it)")
        return 1
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        TMP = tmp
        for name in names:
            try:
                TESTS[name]()
                print(f"ok    {name}")
            except Failure as e:
                failed += 1
                print(f"FAIL  {name}: {e}")
    print(f"{len(names) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
