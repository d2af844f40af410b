"""Turns Benchmarks/run.sh results into BENCHMARKS.md and Benchmarks/photos-per-second.png.

Every speed is reported as a ratio to an anchor measured in the same run on the same files.
Usage: report.py RESULTS_DIR REPO_ROOT
"""
import json
import platform
import statistics
import subprocess
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

results, root = Path(sys.argv[1]), Path(sys.argv[2])
TOOLS = ["market-images", "vipsthumbnail loop", "ImageMagick", "Pillow"]


def runs(name):
    return json.loads((results / f"{name}.json").read_text())["results"]


def median_and_spread(entry):
    times = entry["times"]
    return statistics.median(times), min(times), max(times)


def row(label, entry, photos):
    median, low, high = median_and_spread(entry)
    return label, median, low, high, photos / median


def version(command):
    try:
        return subprocess.run(command, shell=True, capture_output=True, text=True).stdout.strip().splitlines()[0]
    except (IndexError, OSError):
        return "unknown"


def table(rows, anchor_rows):
    lines = ["| tool | median s | min–max s | photos/s | " + " | ".join(f"× {a}" for a, *_ in anchor_rows) + " |",
             "|---|---|---|---|" + "---|" * len(anchor_rows)]
    for label, median, low, high, rate in rows:
        ratios = " | ".join(f"{rate / anchor_rate:.2f}" for _, _, _, _, anchor_rate in anchor_rows)
        lines.append(f"| {label} | {median:.2f} | {low:.2f}–{high:.2f} | {rate:.1f} | {ratios} |")
    return "\n".join(lines)


prepare7 = [row(t, e, 7) for t, e in zip(TOOLS, runs("prepare-7"))]
prepare60 = [row(t, e, 60) for t, e in zip(TOOLS, runs("prepare-60-fast") + runs("prepare-60-slow"))]
thumbs60 = [row(t, e, 60) for t, e in zip(["market-images (4 variants)", "vipsthumbnail ×1 (600 px only)",
                                          "vipsthumbnail ×4", "ImageMagick (4 variants)"],
                                         runs("thumbs-60") + runs("thumbs-60-slow"))]
jobs = [row(t, e, 60) for t, e in zip(["--jobs 1", "--jobs 2"], runs("jobs"))]
size = [row(t, e, n) for (t, n), e in zip([("60 photos", 60), ("240 photos", 240)], runs("size"))]
rerun = median_and_spread(runs("rerun")[0])


def rss(name):
    path = results / f"{name}.rss"
    return int(path.read_text().split()[-1]) / 1024 if path.exists() else float("nan")


inspect = json.loads((results / "inspect.json").read_text())
imagemagick = {}
for line in (results / "imagemagick-quality.txt").read_text().splitlines():
    name, width, height, quality, size_bytes = line.split()
    imagemagick[name] = (int(width), int(height), int(quality), int(size_bytes.rstrip("B")))

quality_rows, encodes = [], []
for finding in inspect:
    name = Path(finding["file"]).name
    output = finding.get("output")
    if not output:
        quality_rows.append(f"| {name} | failed: {finding.get('error', '')} | | | | |")
        continue
    curve = {int(q): b for q, b in finding["curve"].items()}
    best = max((q for q, b in curve.items() if b <= 300_000), default=None)
    encodes.append(output["encodes"])
    im = imagemagick.get(name)
    same = im and (im[0], im[1]) == (output["width"], output["height"])
    if im and same:
        verdict = "≥" if output["quality"] >= min(im[2], 92) else "BELOW"
        im_text = f"Q{im[2]}, {im[3]} B (market-images {verdict} at the same size)"
    else:
        im_text = f"Q{im[2]}, {im[3]} B at {im[0]}×{im[1]} (other size)" if im else "–"
    quality_rows.append(f"| {name} | {output['width']}×{output['height']} | Q{output['quality']}, {output['bytes']} B | "
                        f"Q{best} | {output['encodes']} | {im_text} |")

machine = f"{platform.machine()}, {subprocess.run('nproc', capture_output=True, text=True).stdout.strip()} cores, " + \
    version("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2")
versions = {
    "libvips": version("vips --version"),
    "ImageMagick": version("convert -version"),
    "Pillow": version(f"{sys.executable} -c 'import PIL, pillow_heif; print(PIL.__version__, \"+ pillow-heif\", pillow_heif.__version__)'"),
    "Swift": version("swift --version 2>&1"),
}

ours60 = prepare60[0][4]
report = f"""# Benchmarks

Made by `Benchmarks/run.sh` (see `Benchmarks/README.md`); every ratio compares tools measured in the same
run on the same files. Machine: {machine}. Versions: {"; ".join(f"{k} {v}" for k, v in versions.items())}.

## prepare: fit a 2048 box, never enlarge, strip, JPEG ≤ 300,000 bytes

`market-images` searches the byte budget; the `vipsthumbnail` loop is a plain resize + encode at Q80 (no
budget); ImageMagick uses `-define jpeg:extent=300000b`; Pillow uses draft + exif_transpose + thumbnail +
a quality bisection. Columns `× tool` are photos/s relative to that tool.

The 7 corpus photos (one is a 12 MP HEIC that every tool decodes at full size):

{table(prepare7, prepare7)}

60 photos (the corpus copied round-robin):

{table(prepare60, prepare60)}

## thumbs: 160, 240, 400 and 600 px squares, 60 photos

`market-images` decodes once and crops once (attention); `vipsthumbnail` runs once per photo (the 600 px
square only: the target is all four in at most 1.5× that) and 4 times per photo (attention); ImageMagick
makes the 4 from one read with a centre crop (it has no saliency crop).

{table(thumbs60, thumbs60)}

## Scaling (prepare, market-images)

{table(jobs, jobs[:1])}

{table(size, size[:1])}

Rerun of the unchanged 240-photo folder: median {rerun[0]:.3f} s (min {rerun[1]:.3f}, max {rerun[2]:.3f}).

## Peak memory (RSS)

| run | peak MB |
|---|---|
| market-images prepare, 60 photos, --jobs 2 | {rss("ours-60"):.0f} |
| market-images prepare, giant-image.jpg (280 MP, pixel limit raised) | {rss("giant"):.0f} |
| vipsthumbnail loop, 60 photos (largest single process) | {rss("vipsthumbnail-60"):.0f} |
| ImageMagick loop, 60 photos (largest single process) | {rss("imagemagick-60"):.0f} |
| Pillow, 60 photos | {rss("pillow-60"):.0f} |

## Quality at the budget (corpus photos, 300,000 bytes)

Chosen quality and bytes; the highest quality that fits by exhaustive search over Q75–92 with the same
encoder settings on the same pixels (`inspect --curve`); encodes spent; ImageMagick's `jpeg:extent` result
(it never resizes, so it is comparable only at the same size; it also searches up to Q100, where
market-images stops at `--max-quality 92`, so on photos that fit easily ImageMagick spends bytes on Q99–100).

| photo | size | market-images | exhaustive best | encodes | ImageMagick jpeg:extent |
|---|---|---|---|---|---|
{chr(10).join(quality_rows)}

Encodes per photo: mean {statistics.mean(encodes):.2f}, max {max(encodes)}.
"""
# The serve section comes from Benchmarks/serve.sh; a prepare run keeps it as it was.
previous = (root / "BENCHMARKS.md").read_text() if (root / "BENCHMARKS.md").exists() else ""
serve_start = previous.find("<!-- serve: written by Benchmarks/serve_report.py -->")
(root / "BENCHMARKS.md").write_text(report + ("\n" + previous[serve_start:] if serve_start >= 0 else ""))

figure, axes = plt.subplots(1, 2, figsize=(11, 4))
for axis, (title, rows) in zip(axes, [("prepare, 60 photos", prepare60), ("thumbs (4 sizes), 60 photos", thumbs60)]):
    labels = [r[0] for r in rows]
    axis.barh(labels, [r[4] for r in rows], color=["#2b7a78"] + ["#9aa5b1"] * (len(rows) - 1))
    axis.set_title(title)
    axis.set_xlabel("photos per second (higher is better)")
    axis.invert_yaxis()
figure.tight_layout()
figure.savefig(root / "Benchmarks" / "photos-per-second.png", dpi=110)
print(f"wrote {root / 'BENCHMARKS.md'}; market-images prepare: {ours60:.1f} photos/s on 60 photos")
