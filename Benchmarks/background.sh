#!/usr/bin/env bash
# The background model's masks against known truth, and what a mask costs: the made product photos
# of Tests/Fixtures/products (products drawn with Pillow on textured grounds cut from the corpus, and
# two made hard: white on white, glass), each run through libMarketImagesMask.so exactly as
# `--background` runs it (the 320 × 320 pass, upsampling, the edge decided by colour), pinned to one
# core. Prints IoU at 128 against the truth, the seconds per mask, the mask's product and unsure
# shares and the share of the product that is ground it encloses, kept and named ("ground kept"),
# and at 800 px the edge on white as CKernels/background.c draws it (alpha 0 at or below FLOOR,
# default 160 as built, full at 224): "halo", the share of the 8 px band just outside the drawn
# product darker than 235 in some channel; "lost", the share of the product drawn under half.
# Usage: Benchmarks/background.sh [LIBRARY] [MODEL]
set -euo pipefail
source "$(dirname "$0")/products-setup.sh"
library="${1:-${XDG_DATA_HOME:-$HOME/.local/share}/market-images/libMarketImagesMask.so}"
model="${2:-${XDG_DATA_HOME:-$HOME/.local/share}/market-images/u2netp.onnx}"
uptime
taskset -c 0 python3 - "$library" "$model" "$work/cases" <<'PYTHON'
import ctypes, glob, os, sys, time
import numpy as np
from PIL import Image, ImageFilter
library, model, work = sys.argv[1:]
floor = int(os.environ.get("FLOOR", "160"))
lib = ctypes.CDLL(library)
lib.mi_mask_open.restype = ctypes.c_void_p
lib.mi_mask_open.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
lib.mi_mask_run.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t,
                            ctypes.POINTER(ctypes.c_double)]
error = ctypes.create_string_buffer(512)
net = lib.mi_mask_open(model.encode(), error, 512)
assert net, error.value
scores, halos, losses = [], [], []
for path in sorted(glob.glob(os.path.join(work, "*.truth.png"))):
    name = os.path.basename(path)[:-len(".truth.png")]
    for side in (800, 2048):
        photo = Image.open(os.path.join(work, name + ".png")).convert("RGB").resize((side, side), Image.LANCZOS)
        truth = np.array(Image.open(path).resize((side, side))) >= 128
        mask, kept = ctypes.create_string_buffer(side * side), ctypes.c_double(0)
        start = time.time()
        assert lib.mi_mask_run(net, photo.tobytes(), side, side, 320, mask, error, 512, ctypes.byref(kept)) == 0, error.value
        seconds = time.time() - start
        found = np.frombuffer(mask.raw, dtype=np.uint8).reshape(side, side)
        iou = (found >= 128)[truth].sum() / max(1, ((found >= 128) | truth).sum())
        touched = (found >= 64).sum()
        unsure = ((found >= 64) & (found < 192)).sum() / max(1, touched)
        print(f"{name:20s} {side:5d} px  IoU {iou:.3f}  {seconds:.2f} s  product {(found >= 128).mean():.3f}  unsure {unsure:.2f}  ground kept {kept.value:.3f}")
        if side != 800:
            continue
        alpha = np.clip((found.astype(np.int32) - floor) * 255 // (224 - floor), 0, 255)
        white = (np.array(photo).astype(np.int32) * alpha[..., None] + 255 * (255 - alpha[..., None]) + 127) // 255
        band = (np.array(Image.fromarray(truth.astype(np.uint8) * 255).filter(ImageFilter.MaxFilter(17))) >= 128) & ~truth
        halo, lost = (white[band].min(axis=1) < 235).mean(), (alpha[truth] < 128).mean()
        print(f"{name:20s}   edge on white, floor {floor}: halo {halo:.3f}  lost {lost:.3f}")
        if not name.startswith(("white", "glass")):
            scores.append(iou); halos.append(halo); losses.append(lost)
print(f"textured cases: IoU mean {sum(scores) / len(scores):.3f}, min {min(scores):.3f}; "
      f"halo mean {sum(halos) / len(halos):.3f}, max {max(halos):.3f}; lost mean {sum(losses) / len(losses):.3f}, max {max(losses):.3f}")
PYTHON
