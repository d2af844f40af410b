# Sourced by serve.sh and peers.sh, with ROOT, WORK, RESULTS, IMAGES, BIN, VENV, DURATION and the
# ports OURS and THUMBOR set: the request paths of a figure, starting and stopping the servers, and one
# wrk point.
# paths NAME KIND OPTIONS...: the request paths of one figure, for our service (signed) or thumbor.
paths_ours() {
    local name=$1 folder=$2 format=$3; shift 3
    local file
    : > "$WORK/$name.paths"
    for file in "$IMAGES/$folder"/*; do
        "$BIN" url "local:///$folder/$(basename "$file")" "$@" ${format:+--format $format} >> "$WORK/$name.paths"
    done
}

paths_thumbor() {
    local name=$1 folder=$2 operations=$3 file
    : > "$WORK/$name.paths"
    for file in "$IMAGES/$folder"/*; do echo "/unsafe/$operations/$folder/$(basename "$file")" >> "$WORK/$name.paths"; done
}

# Adds each path's ETag, so the requests revalidate.
with_etags() {
    local port=$1 list=$2 path
    while read -r path; do
        printf '%s\t%s\n' "$path" "$(curl -s -o /dev/null -D - "http://127.0.0.1:$port$path" | tr -d '\r' | awk -F': ' 'tolower($1)=="etag"{print $2}')"
    done < "$list" > "$list.tags"
    mv "$list.tags" "$list"
}

wait_port() {
    local i
    for i in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$1/${2:-}" && return 0; sleep 0.1; done
    echo "nothing listening on $1" >&2; return 1
}

# Peak RSS in KB of a process and all its children (thumbor's forks).
peak_rss() {
    local pids total=0 pid
    pids="$1 $(pgrep -P "$1" | tr '\n' ' ')"
    for pid in $pids; do total=$((total + $(awk '/VmHWM/{print $2}' "/proc/$pid/status" 2>/dev/null || echo 0))); done
    echo $total
}

start_ours() {
    "$BIN" serve --root "$IMAGES" --bind "127.0.0.1:$OURS" --max-pixels 300000000 "$@" 2>/dev/null &
    SERVER=$!
    wait_port $OURS health
}

start_thumbor() {
    local processes=$1 threads=$2
    sed -e "s|@ROOT@|$IMAGES|" -e "s|@THREADS@|$threads|" "$ROOT/Benchmarks/serve/thumbor.conf.in" > "$WORK/thumbor.conf"
    "$VENV/bin/thumbor" -c "$WORK/thumbor.conf" -p $THUMBOR -i 127.0.0.1 --processes "$processes" -l error >/dev/null 2>&1 &
    SERVER=$!
    wait_port $THUMBOR healthcheck
}

# Stops the server and its children, and waits until its port is free for the next one.
stop() {
    pkill -TERM -P "$SERVER" 2>/dev/null || true
    kill -TERM "$SERVER" 2>/dev/null || true
    wait "$SERVER" 2>/dev/null || true
    local i
    for i in $(seq 1 100); do
        curl -s -o /dev/null "http://127.0.0.1:$OURS/" || curl -s -o /dev/null "http://127.0.0.1:$THUMBOR/" ||
            curl -s -o /dev/null "http://127.0.0.1:${ENGINE:-$OURS}/" || return 0
        sleep 0.1
    done
}

# point NAME SERVER PORT CONCURRENCY PATHS: one wrk run; its RESULT line and the server's peak RSS.
point() {
    local name=$1 server=$2 port=$3 concurrency=$4 list=$5 run=$6
    local threads=$((concurrency < 2 ? 1 : 2))
    local line
    line=$(PATHS="$list" wrk -t$threads -c"$concurrency" -d"${DURATION}s" --timeout 10s -s "$ROOT/Benchmarks/serve/paths.lua" \
        "http://127.0.0.1:$port" | grep '^RESULT')
    echo "$line rss_kb=$(peak_rss "$SERVER")" > "$RESULTS/$name.$server.$run.txt"
    echo "$name $server run $run: $line"
}

# setup_servers [COMMAND:PACKAGE...]: wrk, nginx and the vips tools (and the packages given, where their
# command is missing) from apt; thumbor in a virtualenv; the release build; the results folder.
setup_servers() {
    local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    local missing=() pair
    for pair in wrk:wrk nginx:nginx-light vips:libvips-tools "$@"; do
        command -v "${pair%%:*}" >/dev/null || missing+=("${pair#*:}")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
    [ -x "$VENV/bin/thumbor" ] || { python3 -m venv "$VENV" && "$VENV/bin/pip" install -q "thumbor>=7,<8" pillow-heif; }
    "$ROOT/scripts/setup"
    (cd "$ROOT" && swift build -c release --product market-images >/dev/null)
    mkdir -p "$RESULTS"
}

# ours NAME CONCURRENCY PATHS [serve options]: a fresh server per point, so its peak RSS is this point's.
ours() {
    local name=$1 concurrency=$2 list=$3 run=$4; shift 4
    start_ours "$@"
    point "$name" ours $OURS "$concurrency" "$list" "$run"
    stop
}

theirs() {
    local name=$1 concurrency=$2 list=$3 run=$4
    start_thumbor "$THUMBOR_PROCESSES" "$THUMBOR_THREADS"
    point "$name" thumbor $THUMBOR "$concurrency" "$list" "$run"
    stop
}

# best_thumbor: thumbor at its best on this machine (one process per core, or one process with a
# thread per core; each probed on the miss figure, THUMBOR_SETTING="P T" skips the probe) in
# THUMBOR_PROCESSES and THUMBOR_THREADS.
best_thumbor() {
    local best=-1 processes threads rate setting
    THUMBOR_BEST=${THUMBOR_SETTING:-}
    for setting in $([ -n "$THUMBOR_BEST" ] || echo "$CORES,0 1,$CORES"); do
        setting=${setting/,/ }
        read -r processes threads <<< "$setting"
        THUMBOR_PROCESSES=$processes THUMBOR_THREADS=$threads theirs "miss-p$processes" 2 "$WORK/thumbor-miss.paths" 0
        rate=$(awk '{split($2,a,"="); split($3,b,"="); printf "%d", a[2]/b[2]}' "$RESULTS/miss-p$processes.thumbor.0.txt")
        if [ "$rate" -gt "$best" ]; then best=$rate; THUMBOR_BEST="$processes $threads"; fi
    done
    read -r THUMBOR_PROCESSES THUMBOR_THREADS <<< "$THUMBOR_BEST"
    echo "thumbor processes=$THUMBOR_PROCESSES threads=$THUMBOR_THREADS" > "$RESULTS/thumbor-setting.txt"
}

# start_nginx PORT ROOT: nginx as a static file server (one worker, no access log), its pid in NGINX.
start_nginx() {
    local port=$1 root=$2 folder=$WORK/nginx-$1
    mkdir -p "$folder"
    cat > "$folder/nginx.conf" <<CONF
daemon off; worker_processes 1; error_log stderr error; pid $folder/nginx.pid;
events { worker_connections 256; }
http { access_log off; client_body_temp_path $folder; proxy_temp_path $folder; fastcgi_temp_path $folder;
  uwsgi_temp_path $folder; scgi_temp_path $folder; types { image/jpeg jpg; }
  server { listen 127.0.0.1:$port; root $root; } }
CONF
    nginx -c "$folder/nginx.conf" -p "$folder" &
    NGINX=$!
}

stop_nginx() {
    kill "$NGINX" 2>/dev/null || true
    wait "$NGINX" 2>/dev/null || true
}
