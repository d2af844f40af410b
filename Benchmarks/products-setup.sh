# Sourced by the benchmarks of --listing and --background (listing-rules.sh, background.sh): sets
# here and a work folder removed on exit, and draws the made product photos with known masks
# (Tests/Fixtures/products/make.py) into $work/cases.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$here/Tests/Fixtures/products/make.py" "$here/Tests/Fixtures" "$work/cases" >/dev/null
