"""Turns Benchmarks/serve.sh results into the serve section of BENCHMARKS.md and
Benchmarks/serve-requests-per-second.png.

Every figure has both servers measured in the same round, back to back; the table gives the median
over rounds (and the range), and each ratio is ours over thumbor's from the same rounds.
Usage: serve_report.py RESULTS_DIR REPO_ROOT
"""
import platform
import re
import statistics
import subprocess
import sys
from pathlib import Path

results, root = Path(sys.argv[1]), Path(sys.argv[2])
START, END = "<!-- serve: written by Benchmarks/serve_report.py -->", "<!-- /serve -->"


def points(name, server):
    found = []
    for path in sorted(results.glob(f"{name}.{server}.*.txt")):
        fields = dict(re.findall(r"(\w+)=(\S+)", path.read_text()))
        requests, seconds = int(fields["requests"]), float(fields["seconds"])
        statuses = dict(item.split("=") for item in fields.get("statuses", "").split(",") if "=" in item)
        answered = sum(int(count) for status, count in statuses.items() if status in ("200", "304"))
        found.append({"rate": requests / seconds, "answered": answered / seconds, "p50": float(fields["p50_ms"]), "p99": float(fields["p99_ms"]),
                      "rss": int(fields["rss_kb"]) / 1024, "statuses": statuses, "errors": int(fields["errors"])})
    return found


def summary(name, server):
    found = points(name, server)
    if not found:
        return None
    rates = [p["rate"] for p in found]
    statuses = {}
    for point in found:
        for status, count in point["statuses"].items():
            statuses[status] = statuses.get(status, 0) + int(count)
    answered = [p["answered"] for p in found]
    return {"rate": statistics.median(rates), "low": min(rates), "high": max(rates),
            "answered": statistics.median(answered), "best": max(answered),
            "p50": statistics.median(p["p50"] for p in found), "p99": statistics.median(p["p99"] for p in found),
            "rss": max(p["rss"] for p in found), "statuses": statuses, "errors": sum(p["errors"] for p in found), "runs": len(found)}


def cell(value):
    if value is None:
        return "–"
    statuses = ", ".join(f"{k}: {v}" for k, v in sorted(value["statuses"].items()))
    errors = f", socket errors: {value['errors']}" if value["errors"] else ""
    return (f"{value['rate']:,.0f} ({value['low']:,.0f}–{value['high']:,.0f}) | {value['p50']:.1f} | {value['p99']:.1f} | "
            f"{value['rss']:.0f} | {statuses}{errors}")


FIGURES = [
    ("miss", "cache miss: 2K JPEG → fit 512, JPEG Q80, 2 connections", "≥ 2× thumbor"),
    ("grid", "cache miss: `pr:grid/dpr:3` (attention crop, 600 px) vs thumbor `600x600/smart`", "—"),
    ("webp", "cache miss: fit 512, WebP Q80", "—"),
    ("miss-fast", "cache miss: fit 512, JPEG Q80, `serve --fast-decode`", "≥ 2× thumbor"),
    ("webp-fast", "cache miss: fit 512, WebP Q80, `serve --fast-decode`", "—"),
    ("hit", "disk cache warm, 240 px thumbnails, 32 connections (thumbor has no result storage: it renders)", "≥ 5,000 req/s, p99 ≤ 20 ms"),
    ("revalidate", "`If-None-Match` revalidation, 32 connections (thumbor renders, then answers 304)", "≥ 10,000 req/s"),
    ("phone", "12 MP phone photos (HEIC and JPEG) → 240 px list thumbnail, 16 connections, queue of 4", "peak RSS ≤ 400 MB, only 200 or fast 503"),
]


def section():
    setting = (results / "thumbor-setting.txt").read_text().strip() if (results / "thumbor-setting.txt").exists() else "unknown"
    probes = {p: summary(f"miss-p{p}", "thumbor") for p in ("1", "2")}
    cpu = subprocess.run("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2", shell=True, capture_output=True, text=True).stdout.strip()
    thumbor = subprocess.run(f"{root}/.build-bench/thumbor-venv/bin/thumbor --version", shell=True, capture_output=True, text=True).stdout.strip()
    lines = [START, "## serve: the thumbnail service under load, against thumbor", "",
             f"Made by `Benchmarks/serve.sh`: {platform.machine()}, {subprocess.run('nproc', capture_output=True, text=True).stdout.strip()} cores, {cpu}; "
             f"{thumbor} (Pillow, file loader, no storage, LANCZOS, EXIF orientation on) at its best setting on this machine "
             f"({setting}; probed: " + ", ".join(f"{k} process(es) {v['rate']:.1f} req/s" for k, v in probes.items() if v) + "). "
             "wrk cycles over 28 distinct 2K JPEGs made from the corpus (each thread from its own offset, so no two connections ask "
             "for the same image at once); each point is 30 s with a freshly started server, both servers measured back to back in "
             "each round. Requests/s is the median of the rounds (range in brackets); latency percentiles are wrk's; peak RSS is "
             "the server's (all thumbor processes together).", "",
             "The ratios compare images answered per second (200 and 304; a 503 is not an image): against thumbor's "
             "median, and against its best round.", "",
             "| figure | target | server | req/s | p50 ms | p99 ms | peak RSS MB | statuses | × thumbor | × thumbor's best round |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for name, label, target in FIGURES:
        ours, theirs = summary(name, "ours"), summary(name.removesuffix("-fast"), "thumbor")
        ratio = f"{ours['answered'] / theirs['answered']:.2f}" if ours and theirs else "–"
        best = f"{ours['answered'] / theirs['best']:.2f}" if ours and theirs else "–"
        lines.append(f"| {label} | {target} | market-images | {cell(ours)} | {ratio} | {best} |")
        lines.append(f"| | | thumbor | {cell(theirs)} | 1.00 | |")
    remote, local = summary("remote", "ours"), summary("miss", "ours")
    if remote and local:
        lines += ["", f"Sources downloaded from a loopback nginx origin (`--allow-source`, `--allow-private-sources`) instead of read "
                      f"from `--root`: {remote['rate']:.1f} req/s against {local['rate']:.1f} ({remote['rate'] / local['rate']:.2f}×), "
                      f"p50 {remote['p50']:.1f} ms against {local['p50']:.1f} ms: the download path (DNS check, a client per "
                      "download, the body read into memory under the byte limit) costs "
                      f"{(1 / remote['rate'] - 1 / local['rate']) * 1000 * 2:.1f} ms per request at 2 connections."]
    lines.append(END)
    return "\n".join(lines) + "\n"


def plot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    names = [name for name, *_ in FIGURES if summary(name, "ours")]
    ours = [summary(n, "ours")["answered"] for n in names]
    theirs = [(summary(n.removesuffix("-fast"), "thumbor") or {"answered": 0})["answered"] for n in names]
    figure, axis = plt.subplots(figsize=(8, 4))
    x = range(len(names))
    axis.bar([i - 0.2 for i in x], ours, 0.4, label="market-images serve")
    axis.bar([i + 0.2 for i in x], theirs, 0.4, label="thumbor")
    axis.set_yscale("log")
    axis.set_xticks(list(x), names)
    axis.set_ylabel("images answered per second (log scale)")
    axis.set_title("Thumbnail service, same machine, same run")
    axis.legend()
    figure.tight_layout()
    figure.savefig(root / "Benchmarks" / "serve-requests-per-second.png", dpi=100)


report = root / "BENCHMARKS.md"
text = report.read_text() if report.exists() else "# Benchmarks\n"
block = section() + "\n![Requests per second](Benchmarks/serve-requests-per-second.png)\n"
if START in text:
    before, rest = text.split(START, 1)
    after = rest.split(END, 1)[1].lstrip("\n")
    after = after.split("![Requests per second](Benchmarks/serve-requests-per-second.png)\n", 1)[-1].lstrip("\n")
    text = before + block + ("\n" + after if after else "")
else:
    text = text.rstrip("\n") + "\n\n" + block
report.write_text(text)
plot()
print(f"wrote the serve section of {report}")
