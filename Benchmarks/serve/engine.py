"""The imgproxy engine as a miss-path peer: libvips 8.18 with mozjpeg and highway (PyPI's
pyvips-binary, what imgproxy's images are built on) behind a minimal HTTP server, doing what imgproxy
does for `rs:fit:W:H/q:Q` on a JPEG: `thumbnail` with shrink-on-load, never enlarging, an sRGB
transform only when the source carries a profile, `jpegsave` with optimised Huffman tables and no
metadata, baseline (imgproxy's `vips_jpegsave_go` at its IMGPROXY_JPEG_PROGRESSIVE default). One process per core, each answering one request at a time
(imgproxy's workers, with VIPS_CONCURRENCY=1), forked after binding so they share the socket.

Usage: engine.py ROOT PORT PROCESSES     GET /fit/W/H/Q/NAME answers ROOT/NAME fitted
"""
import http.server
import os
import sys

os.environ.setdefault("VIPS_CONCURRENCY", "1")
import pyvips  # noqa: E402  (after VIPS_CONCURRENCY)

assert pyvips.version(1) >= 18, "pyvips uses Debian's libvips: pip install --force-reinstall --no-deps pyvips-binary"
pyvips.cache_set_max(0)
root, port, processes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body in one write: otherwise delayed ACKs add about 40 ms to every response.
    disable_nagle_algorithm = True

    def do_GET(self):
        parts = self.path.split("/")
        if self.path == "/health":
            return self.answer(200, b"ok", "text/plain")
        if len(parts) != 6 or parts[1] != "fit" or "/" in parts[5] or parts[5].startswith("."):
            return self.answer(404, b"not found", "text/plain")
        width, height, quality = int(parts[2]), int(parts[3]), int(parts[4])
        image = pyvips.Image.thumbnail(os.path.join(root, parts[5]), width, height=height, size="down")
        if image.get_typeof("icc-profile-data") != 0:
            image = image.icc_transform("srgb")
        self.answer(200, image.jpegsave_buffer(Q=quality, optimize_coding=True, keep="none"), "image/jpeg")

    def answer(self, status, body, kind):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # wrk closing its connections at the end of a run

    def log_message(self, *arguments):
        pass


server = http.server.HTTPServer(("127.0.0.1", port), Handler)
for _ in range(processes - 1):
    if os.fork() == 0:
        break
server.serve_forever()
