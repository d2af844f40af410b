# Sourced by serve.sh, stages.sh and misses.sh (for options.sh, perceptual.sh and decode-scale.sh), with CORPUS and IMAGES set.
# 28 distinct 2K JPEGs (Q90): each corpus photo fitted to 2048 wide, as is, mirrored, flipped and
# turned; and 16 12-megapixel phone photos, HEIC and JPEG.
images() {
    [ -d "$IMAGES/2k" ] && [ "$(ls "$IMAGES/2k" | wc -l)" -eq 28 ] && return
    rm -rf "$IMAGES"; mkdir -p "$IMAGES/2k" "$IMAGES/12mp"
    local n=0 src
    for src in "$CORPUS"/photos/*; do
        vips thumbnail "$src" "$IMAGES/base.v" 2048 --height 2048 --size both
        vips copy "$IMAGES/base.v" "$IMAGES/2k/img-$((n++)).jpg[Q=90,strip]"
        vips flip "$IMAGES/base.v" "$IMAGES/2k/img-$((n++)).jpg[Q=90,strip]" horizontal
        vips flip "$IMAGES/base.v" "$IMAGES/2k/img-$((n++)).jpg[Q=90,strip]" vertical
        vips rot "$IMAGES/base.v" "$IMAGES/2k/img-$((n++)).jpg[Q=90,strip]" d180
    done
    rm -f "$IMAGES/base.v"
    local heic=$CORPUS/photos/iphone_13_pro_max.HEIC
    vips autorot "$heic" "$IMAGES/upright.v"
    for i in 0 1 2 3 4 5 6 7; do
        cp "$heic" "$IMAGES/12mp/phone-$i.HEIC"
        vips copy "$IMAGES/upright.v" "$IMAGES/12mp/phone-$i.jpg[Q=$((85 + i)),strip]"
    done
    rm -f "$IMAGES/upright.v"
}
