"""Turns Benchmarks/peers.sh results into the table of the three costs against their peers, printed and
written as the peers section of BENCHMARKS.md.

Each ratio is ours over the peer's in the same round (throughput for the servers, the peer's time over
ours for the commands, so above 1 is ours ahead everywhere); the table gives the rounds' range. The miss
outputs are scored with PyPI's SSIMULACRA2 against the full decode resized with libvips' Lanczos3 in
float (the `vips` command), and their bytes summed.
Usage: peers_report.py RESULTS_DIR OUTPUTS_DIR SOURCES_DIR REPO_ROOT
"""
import re
import statistics
import subprocess
import sys
import tempfile
from datetime import date
from pathlib import Path

from ssimulacra2 import compute_ssimulacra2

results, outputs, sources, root = map(Path, sys.argv[1:5])
START, END = "<!-- peers: written by Benchmarks/peers_report.py -->", "<!-- /peers -->"
GOALS = {"engine": "≥ 1.3× at no lower score", "thumbor": "≥ 1.2× at a higher score", "prepare": "≥ 2.5×",
         "fit": "≤ 1.4× the floor", "hit": "≥ 0.5×"}


def served(name, server):
    """Images answered per second, per round."""
    rates = {}
    for path in results.glob(f"{name}.{server}.*.txt"):
        fields = dict(re.findall(r"(\w+)=(\S+)", path.read_text()))
        statuses = dict(item.split("=") for item in fields.get("statuses", "").split(",") if "=" in item)
        answered = sum(int(count) for status, count in statuses.items() if status in ("200", "304"))
        rates[path.name.split(".")[2]] = answered / float(fields["seconds"])
    return rates


def timed(name):
    return {path.name.rsplit(".", 1)[1]: float(path.read_text()) for path in results.glob(f"{name}.[0-9]*")}


def spread(values, digits=0):
    values = sorted(values)
    return f"{values[0]:,.{digits}f}–{values[-1]:,.{digits}f}" if len(values) > 1 else f"{values[0]:,.{digits}f}"


def ratios(ours, theirs, invert=False):
    rounds = sorted(set(ours) & set(theirs))
    return [(theirs[r] / ours[r]) if invert else (ours[r] / theirs[r]) for r in rounds]


def scores(server):
    """Mean SSIMULACRA2 of a server's outputs and their bytes, or None when it did not run."""
    folder = outputs / server
    if not folder.is_dir():
        return None
    found, size = [], 0
    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        for output in sorted(folder.glob("*.jpg")):
            reference = work / f"{output.stem}.png"
            if not reference.exists():
                source = sources / output.name
                width = int(subprocess.run(["vipsheader", "-f", "width", source], capture_output=True, text=True).stdout)
                height = int(subprocess.run(["vipsheader", "-f", "height", source], capture_output=True, text=True).stdout)
                scale = min(512 / width, 512 / height, 1)
                for arguments in (["cast", source, work / "f.v", "float"], ["resize", work / "f.v", work / "r.v", scale, "--kernel", "lanczos3"],
                                  ["round", work / "r.v", work / "o.v", "rint"], ["cast", work / "o.v", reference, "uchar"]):
                    subprocess.run(["vips", *map(str, arguments)], check=True, capture_output=True)
            subprocess.run(["vips", "copy", output, work / "candidate.png"], check=True, capture_output=True)
            found.append(compute_ssimulacra2(str(reference), str(work / "candidate.png")))
            size += output.stat().st_size
    return statistics.mean(found), size


def machine():
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), "unknown CPU")
    return f"{model}, {len(re.findall(r'^processor', Path('/proc/cpuinfo').read_text(), re.M))} cores"


def section():
    rows = []
    ours_miss = served("miss", "ours")
    score = {server: scores(server) for server in ("ours", "engine", "thumbor")}

    def looks(server):
        value = score[server]
        return f"SSIMULACRA2 {value[0]:.1f}, {value[1] / 1024:,.0f} KB" if value else ""

    for peer, label in (("engine", "the imgproxy engine (libvips 8.18, mozjpeg)"), ("thumbor", "thumbor at its best setting")):
        theirs = served("miss", peer)
        if ours_miss and theirs:
            rows.append((f"a miss: fit 512 Q80 JPEG, 28 distinct 2K JPEGs, 2 connections, against {label}",
                         f"{spread(ours_miss.values(), 1)} req/s, {looks('ours')}", f"{spread(theirs.values(), 1)} req/s, {looks(peer)}",
                         spread(ratios(ours_miss, theirs), 2) + "×", GOALS[peer]))
    prepare, pillow = timed("prepare.ours"), timed("prepare.pillow")
    if prepare and pillow:
        rows.append(("`prepare` of the corpus's photos (progressive JPEG ≤ 300,000 bytes), against Pillow (draft, bisection, progressive)",
                     f"{spread(prepare.values(), 2)} s", f"{spread(pillow.values(), 2)} s",
                     spread(ratios(prepare, pillow, invert=True), 2) + "×", GOALS["prepare"]))
    fit, djpeg = timed("fit.ours"), timed("fit.djpeg")
    if fit and djpeg:
        rows.append(("`prepare --max-edge 512` of the 28 JPEGs, against `djpeg -scale 1/2` of each (the decoder's floor)",
                     f"{spread(fit.values(), 2)} s", f"{spread(djpeg.values(), 2)} s",
                     spread(ratios(fit, djpeg), 2) + "× the floor", GOALS["fit"]))
    hit, nginx = served("hit", "ours"), served("hit", "nginx")
    if hit and nginx:
        rows.append(("a cache hit: 28 240 px outputs, 32 connections, against nginx (1 worker, no access log) serving the same bytes",
                     f"{spread(hit.values())} req/s", f"{spread(nginx.values())} req/s", spread(ratios(hit, nginx), 2) + "×", GOALS["hit"]))
    health = served("health", "ours")
    if health and nginx:
        rows.append(("the HTTP stack's floor: `/health` (3 bytes through Hummingbird, the middleware and the access log), against the same nginx",
                     f"{spread(health.values())} req/s", f"{spread(nginx.values())} req/s", spread(ratios(health, nginx), 2) + "×", "—"))
    rounds = max((len(v) for v in (ours_miss, prepare, fit, hit)), default=0)
    lines = [START, f"## Against the peers, in one run ({date.today()})", "",
             f"`Benchmarks/peers.sh`: {machine()}; {rounds} rounds, the servers and commands interleaved in each; "
             "the ranges are over rounds, each ratio ours against the peer in the same round (above 1 is ours ahead, "
             "except the floor's row). wrk shares the cores with the servers.", "",
             "| cost | market-images | the peer | ratio | goal |", "|---|---|---|---|---|"]
    lines += [f"| {' | '.join(row)} |" for row in rows]
    return "\n".join(lines) + "\n" + END + "\n"


block = section()
print(block)
report = root / "BENCHMARKS.md"
text = report.read_text()
if START in text:
    before, rest = text.split(START, 1)
    after = rest.split(END, 1)[1].lstrip("\n")
    text = before + block + ("\n" + after if after else "")
else:
    text = text.rstrip("\n") + "\n\n" + block
report.write_text(text)
