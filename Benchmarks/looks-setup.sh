# Sourced by the photo-look benchmarks (photo-looks.sh, blur-catch.sh) with their arguments
# [CORPUS_FOLDER] [BINARY]: sets here, corpus and binary (built in release if missing), and a work
# folder removed on exit.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
corpus=${1:-$here/../shared/corpus}
binary=${2:-$here/.build/release/market-images}
[ -x "$binary" ] || (cd "$here" && swift build -c release --product market-images >/dev/null)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
