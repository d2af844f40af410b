# Sourced by options.sh, perceptual.sh and decode-scale.sh, with ROOT, CORPUS, WORK, IMAGES and PORT
# set: the root a service serves, a fresh service on PORT over it, cache misses sent to it one at a
# time on one kept-alive connection, and their outputs scored.
source "$ROOT/Benchmarks/images.sh"

# photo_root: $WORK/root made afresh, with images.sh's 28 distinct 2K JPEGs as photos/.
photo_root() {
    images
    rm -rf "$WORK/root" && mkdir -p "$WORK/root"
    cp -r "$IMAGES/2k" "$WORK/root/photos"
}

# start_service BIN ROOT [FLAGS...]: serve ROOT unsigned on loopback; returns once /health answers.
start_service() {
    local bin=$1 root=$2; shift 2
    "$bin" serve --root "$root" --insecure-unsigned --bind 127.0.0.1:$PORT --metrics-bind off "$@" 2>/dev/null &
    SERVER=$!
    for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$PORT/health" && return; sleep 0.1; done
}

stop_service() { kill $SERVER; wait $SERVER 2>/dev/null || true; }

# fetch_each OPTIONS ROOT FOLDER [OUT]: every file of ROOT/FOLDER at OPTIONS, in order, each answer
# written to OUT (named as its source, less the extension) when given; prints ms per request.
fetch_each() {
    python3 - "$PORT" "$1" "$2" "$3" "${4:-}" <<'PY'
import http.client, os, sys, time
port, options, root, folder, out = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
if out:
    os.makedirs(out, exist_ok=True)
connection = http.client.HTTPConnection("127.0.0.1", port)
names = sorted(os.listdir(os.path.join(root, folder)))
start = time.perf_counter()
for name in names:
    connection.request("GET", f"/insecure/{options}/plain/local:///{folder}/{name}")
    answer = connection.getresponse()
    body = answer.read()
    assert answer.status == 200, (name, answer.status, body[:200])
    if out:
        open(os.path.join(out, os.path.splitext(name)[0]), "wb").write(body)
print(f"{(time.perf_counter() - start) * 1000 / len(names):.1f}")
PY
}

# score REFERENCE_DIR DIR: "bytes min-score mean-score 4:4:4-count" of DIR's images against the same
# names in REFERENCE_DIR, by PyPI's ssimulacra2 (JPEG XL read back by libjxl's djxl).
score() {
    python3 - "$1" "$2" <<'PY'
import os, subprocess, sys, tempfile
from PIL import Image
from ssimulacra2 import compute_ssimulacra2
references, outputs = sys.argv[1], sys.argv[2]
scores, total, full = [], 0, 0
for name in sorted(os.listdir(outputs)):
    path = os.path.join(outputs, name)
    total += os.path.getsize(path)
    with tempfile.NamedTemporaryFile(suffix=".png") as decoded:
        if open(path, "rb").read(2) == b"\xff\x0a":
            subprocess.run(["djxl", path, decoded.name], check=True, capture_output=True)
        else:
            image = Image.open(path)
            full += image.format == "JPEG" and all(h == 1 and v == 1 for _, h, v, _ in image.layer)
            image.convert("RGB").save(decoded.name)
        scores.append(compute_ssimulacra2(os.path.join(references, os.path.splitext(name)[0]), decoded.name))
print(total, f"{min(scores):.1f}", f"{sum(scores) / len(scores):.1f}", full)
PY
}

# Min and median of the numbers on standard input.
stats() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {printf "%.1f / %.1f", a[1], (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
