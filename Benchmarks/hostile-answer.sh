#!/usr/bin/env bash
# The client against a server whose JSON answer never ends, sent as fast as loopback takes it: the
# tool's peak resident memory and time until it gives up, over RUNS runs (min / median / max), next to
# the tool doing nothing (`--version`). Usage: Benchmarks/hostile-answer.sh [BINARY] [RUNS]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$ROOT/.build/debug/market-images} RUNS=${2:-12}
OUT=$(mktemp -d)
trap 'kill "$SERVER" 2>/dev/null || true; rm -rf "$OUT"' EXIT
python3 - "$OUT/port" <<'EOF' &
import socket, sys, threading
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(8)
open(sys.argv[1], "w").write(str(listener.getsockname()[1]))
def serve(client):
    try:
        client.recv(65536)
        client.sendall(b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{"id":1,"name":"')
        chunk = b"a" * 65536
        for _ in range(16384):  # 1 GiB at most, whatever the client does
            client.sendall(chunk)
    except OSError:
        pass
    finally:
        client.close()
while True:
    connection, _ = listener.accept()
    threading.Thread(target=serve, args=(connection,), daemon=True).start()
EOF
SERVER=$!
while [ ! -s "$OUT/port" ]; do sleep 0.1; done
PORT=$(cat "$OUT/port")
for _ in $(seq "$RUNS"); do
    /usr/bin/time -f "%M %e" -o "$OUT/run" "$BIN" show 1 --server "http://127.0.0.1:$PORT" --dialect openmarket --timeout 30 >/dev/null 2>&1 || true
    cat "$OUT/run" >> "$OUT/runs"
done
/usr/bin/time -f "%M" -o "$OUT/idle" "$BIN" --version >/dev/null
python3 - "$OUT/runs" "$(cat "$OUT/idle")" <<'EOF'
import statistics, sys
# GNU time adds "Command exited with non-zero status 1" before its figures.
runs = [tuple(map(float, line.split())) for line in open(sys.argv[1]) if not line.startswith("Command")]
for name, values, unit in [("peak memory", [r[0] / 1024 for r in runs], "MB"), ("time to give up", [r[1] for r in runs], "s")]:
    print(f"{name}: min {min(values):.2f} / median {statistics.median(values):.2f} / max {max(values):.2f} {unit}")
print(f"the tool alone (--version): {int(sys.argv[2]) / 1024:.0f} MB; {len(runs)} runs")
EOF
