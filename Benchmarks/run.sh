#!/usr/bin/env bash
# Times market-images against the tools a seller would otherwise use, in one run on one machine,
# and writes BENCHMARKS.md and Benchmarks/photos-per-second.png. See Benchmarks/README.md.
#
# Usage: Benchmarks/run.sh            full run (about 15 minutes on 2 cores)
#        RUNS=2 Benchmarks/run.sh     fewer repetitions
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CORPUS=${CORPUS:-$ROOT/../shared/corpus}
WORK=$ROOT/.build-bench
RESULTS=$WORK/results
RUNS=${RUNS:-5}
SLOW_RUNS=${SLOW_RUNS:-3}
BIN=$ROOT/.build/release/market-images
PY=$WORK/venv/bin/python

setup() {
    local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    local missing=()
    for tool in hyperfine convert vipsthumbnail; do command -v $tool >/dev/null || missing+=("$tool"); done
    [ -x /usr/bin/time ] || missing+=(time)
    if [ ${#missing[@]} -gt 0 ]; then
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq hyperfine imagemagick libvips-tools time >/dev/null
    fi
    [ -x "$PY" ] || python3 -m venv "$WORK/venv"
    "$PY" -c "import PIL, pillow_heif, matplotlib" 2>/dev/null || "$WORK/venv/bin/pip" install -q pillow pillow-heif matplotlib
    "$ROOT/scripts/setup"
    (cd "$ROOT" && swift build -c release --product market-images >/dev/null)
}

# Folders of N photos made by copying the corpus photos round-robin, so rates are stable.
make_folder() {
    local n=$1 dir=$WORK/photos-$1
    [ -d "$dir" ] && [ "$(ls "$dir" | wc -l)" -eq "$n" ] && return
    rm -rf "$dir"; mkdir -p "$dir"
    local sources=("$CORPUS"/photos/*) i
    for ((i = 0; i < n; i++)); do
        local src=${sources[$((i % ${#sources[@]}))]}
        cp "$src" "$dir/IMG_$(printf %04d $i).${src##*.}"
    done
}

# bench NAME RUNS COMMAND...: one hyperfine entry per command, each run starting from an empty output.
bench() {
    local name=$1 runs=$2; shift 2
    hyperfine --style basic --runs "$runs" --warmup 1 --prepare "rm -rf $WORK/out" \
        --export-json "$RESULTS/$name.json" "$@" > "$RESULTS/$name.txt"
}

# rss NAME COMMAND: peak resident memory in KB of one run (GNU time forks from a small process).
rss() {
    local name=$1; shift
    rm -rf "$WORK/out"
    /usr/bin/time -f "%M" -o "$RESULTS/$name.rss" "$@" >/dev/null 2>&1 || true
}

prepare_commands() {
    local in=$1
    echo "$BIN prepare $in --out $WORK/out -q"
    echo "bash -c 'mkdir -p $WORK/out; for f in $in/*; do vipsthumbnail \"\$f\" --size \"2048x2048>\" -o \"$WORK/out/%s.jpg[Q=80,strip]\"; done'"
    echo "bash -c 'mkdir -p $WORK/out; for f in $in/*; do b=\$(basename \"\$f\"); convert \"\$f\" -auto-orient -resize \"2048x2048>\" -strip -define jpeg:extent=300000b \"$WORK/out/\${b%.*}.jpg\"; done'"
    echo "$PY $ROOT/Benchmarks/pillow_prepare.py $in $WORK/out"
}

thumbs_commands() {
    local in=$1
    echo "$BIN thumbs $in --out $WORK/out -q"
    echo "bash -c 'mkdir -p $WORK/out; for f in $in/*; do vipsthumbnail \"\$f\" --size 600x600 --smartcrop attention -o \"$WORK/out/%s.600.jpg[Q=82,strip]\"; done'"
    echo "bash -c 'mkdir -p $WORK/out; for f in $in/*; do for s in 160 240 400 600; do vipsthumbnail \"\$f\" --size \${s}x\${s} --smartcrop attention -o \"$WORK/out/%s.\$s.jpg[Q=82,strip]\"; done; done'"
    echo "bash -c 'mkdir -p $WORK/out; for f in $in/*; do b=\$(basename \"\$f\"); convert \"\$f\" -auto-orient -strip -quality 82 \\( +clone -resize 600x600^ -gravity center -extent 600x600 -write \"$WORK/out/\${b%.*}.600.jpg\" +delete \\) \\( +clone -resize 400x400^ -gravity center -extent 400x400 -write \"$WORK/out/\${b%.*}.400.jpg\" +delete \\) \\( +clone -resize 240x240^ -gravity center -extent 240x240 -write \"$WORK/out/\${b%.*}.240.jpg\" +delete \\) -resize 160x160^ -gravity center -extent 160x160 \"$WORK/out/\${b%.*}.160.jpg\"; done'"
}

main() {
    setup
    mkdir -p "$RESULTS"
    make_folder 60
    make_folder 240
    local seven=$CORPUS/photos sixty=$WORK/photos-60

    echo "prepare: corpus photos" >&2
    mapfile -t commands < <(prepare_commands "$seven")
    bench prepare-7 "$RUNS" "${commands[@]}"
    echo "prepare: 60 photos" >&2
    mapfile -t commands < <(prepare_commands "$sixty")
    bench prepare-60-fast "$RUNS" "${commands[0]}" "${commands[1]}"
    bench prepare-60-slow "$SLOW_RUNS" "${commands[2]}" "${commands[3]}"

    echo "thumbs: 60 photos" >&2
    mapfile -t commands < <(thumbs_commands "$sixty")
    bench thumbs-60 "$RUNS" "${commands[0]}" "${commands[1]}" "${commands[2]}"
    bench thumbs-60-slow "$SLOW_RUNS" "${commands[3]}"

    echo "scaling" >&2
    bench jobs "$RUNS" "$BIN prepare $sixty --out $WORK/out -q --jobs 1" "$BIN prepare $sixty --out $WORK/out -q --jobs 2"
    bench size "$SLOW_RUNS" "$BIN prepare $sixty --out $WORK/out -q" "$BIN prepare $WORK/photos-240 --out $WORK/out -q"
    "$BIN" prepare "$WORK/photos-240" --out "$WORK/rerun" -q >/dev/null 2>&1 || true
    hyperfine --style basic --runs "$RUNS" --warmup 1 --export-json "$RESULTS/rerun.json" \
        "$BIN prepare $WORK/photos-240 --out $WORK/rerun -q" > "$RESULTS/rerun.txt"

    echo "memory" >&2
    rss ours-60 "$BIN" prepare "$sixty" --out "$WORK/out" -q --jobs 2
    rss giant "$BIN" prepare "$CORPUS/hostile/giant-image.jpg" --out "$WORK/out" -q --max-pixels 300000000
    mapfile -t commands < <(prepare_commands "$sixty")
    rss vipsthumbnail-60 bash -c "${commands[1]}"
    rss imagemagick-60 bash -c "${commands[2]}"
    rss pillow-60 bash -c "${commands[3]}"

    echo "quality at the budget" >&2
    "$BIN" inspect "$seven"/* --curve --json > "$RESULTS/inspect.json" || true
    for f in "$seven"/*; do
        b=$(basename "$f")
        convert "$f" -auto-orient -resize "2048x2048>" -strip -define jpeg:extent=300000b "$WORK/im-$b.jpg"
        identify -format "$b %w %h %Q %b\n" "$WORK/im-$b.jpg"
    done > "$RESULTS/imagemagick-quality.txt"

    "$PY" "$ROOT/Benchmarks/report.py" "$RESULTS" "$ROOT"
}

main "$@"
