#!/bin/sh
# The HTML report in a real browser: the demo job's report (examples/traces) is
# rendered by headless Chromium, which must log nothing to the console, and its
# screenshot must be a plausible, non-blank picture. Exit 77 without chromium.
#
#   sh tests/cli/report_render.sh                    the demo report (run by tests/run.sh)
#   sh tests/cli/report_render.sh check OUT.html OUT.png [HEIGHT]
#       checks one report: the static HTML checks of report_cli.sh's check_html,
#       then the render and the screenshot; prints "render_s=SECONDS" (used by
#       tests/corpus/report_all.sh). Exit 0 pass, 1 fail, 77 no chromium.
# env: HTA_INGEST (the binary), CHROMIUM (default: chromium, chromium-browser, google-chrome).
# not under the sanitizers (tests/run.sh): Chromium renders the HTML; it ran in make test
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${HTA_INGEST:=$top/hta-ingest}"

find_chromium() {
  for c in ${CHROMIUM:-} chromium chromium-browser google-chrome; do
    command -v "$c" >/dev/null 2>&1 && { echo "$c"; return 0; }
  done
  return 1
}

# check_png FILE: the screenshot has a plausible size and more than a few colours.
check_png() {
  png=$1
  [ -s "$png" ] || { echo "FAIL: no screenshot $png"; return 1; }
  size=$(wc -c < "$png")
  [ "$size" -ge 20000 ] || { echo "FAIL: screenshot $png is only $size bytes"; return 1; }
  # pixels: through convert (ImageMagick, or a stand-in that prints PPM) when present,
  # else python3 decodes the PNG itself (zlib; the top 800 rows)
  ppm=""
  if command -v convert >/dev/null 2>&1 && convert "$png" ppm:- > "$png.ppm" 2>/dev/null &&
     [ -s "$png.ppm" ]; then
    ppm="$png.ppm"
  fi
  python3 - "$png" "$ppm" <<'PY'
import struct, sys, zlib
png, ppm = sys.argv[1], sys.argv[2]
def from_ppm(path):
    data = open(path, "rb").read()
    fields, pos = [], 0
    while len(fields) < 4:  # P6 width height maxval, comments skipped
        while data[pos:pos + 1].isspace(): pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos); continue
        end = pos
        while not data[end:end + 1].isspace(): end += 1
        fields.append(data[pos:end]); pos = end
    w, h = int(fields[1]), int(fields[2])
    px = data[pos + 1:]
    return w, h, [px[i:i + 3] for i in range(0, min(len(px), w * h * 3), 3 * 7)]
def from_png(path, max_rows=800):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, [], 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), "unexpected PNG format %d/%d" % (depth, ctype)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT": idat.append(body)
        pos += 12 + n
    raw, stride, prev, out = zlib.decompress(b"".join(idat)), w * bpp, None, []
    for y in range(min(h, max_rows)):
        f, row = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        up = prev if prev is not None else bytearray(stride)
        if f == 1:
            for i in range(bpp, stride): row[i] = (row[i] + row[i - bpp]) & 255
        elif f == 2:
            row = bytearray((a + b) & 255 for a, b in zip(row, up))
        elif f == 3:
            for i in range(stride): row[i] = (row[i] + (((row[i - bpp] if i >= bpp else 0) + up[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = row[i - bpp] if i >= bpp else 0; b = up[i]; c = up[i - bpp] if i >= bpp else 0
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = row
        out.extend(bytes(row[i:i + 3]) for i in range(0, stride, bpp * 7))
    return w, h, out
w, h, px = from_ppm(ppm) if ppm else from_png(png)
colours = {}
for p in px: colours[p] = colours.get(p, 0) + 1
top = max(colours.values()) if colours else 0
print("screenshot %dx%d: %d colours sampled, the commonest on %.1f%% of the samples" % (w, h, len(colours), 100.0 * top / max(1, len(px))))
if w < 800 or h < 600: sys.exit("FAIL: screenshot too small")
if len(colours) < 16: sys.exit("FAIL: screenshot looks blank (%d colours)" % len(colours))
if top > 0.995 * len(px): sys.exit("FAIL: screenshot is almost one colour")
PY
  rc=$?
  rm -f "$png.ppm"
  return $rc
}

# render HTML PNG HEIGHT: screenshot through headless Chromium; fails on any console message.
render() {
  html=$1 png=$2 height=$3
  profile=$(mktemp -d) || return 1
  rm -f "$png"
  t0=$(date +%s.%N)
  to=""; command -v timeout >/dev/null 2>&1 && to="timeout 120"
  $to "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
    --enable-logging=stderr --v=0 --user-data-dir="$profile" --window-size="1400,$height" \
    --screenshot="$png" "file://$html" > "$png.log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  rm -rf "$profile"
  echo "render_s=$(echo "$t1 $t0" | awk '{ printf "%.2f", $1 - $2 }')"
  if [ $rc != 0 ]; then echo "FAIL: chromium exited $rc"; tail -n 5 "$png.log"; return 1; fi
  if grep -q 'CONSOLE' "$png.log"; then echo "FAIL: console messages:"; grep 'CONSOLE' "$png.log" | head; return 1; fi
  rm -f "$png.log"
  check_png "$png"
}

chromium=$(find_chromium) || { echo "skip: chromium is not installed (apt-get install chromium)"; exit 77; }

if [ "${1:-}" = check ]; then
  [ $# -ge 3 ] || { echo "usage: report_render.sh check OUT.html OUT.png [HEIGHT]"; exit 2; }
  html=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
  sh "$here/report_cli.sh" check "$html" || exit 1
  render "$html" "$3" "${4:-2000}" || exit 1
  exit 0
fi

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
"$HTA_INGEST" -q "$tmp/demo.db" "$top/examples/traces" || { echo "FAIL: ingest"; exit 1; }
"$HTA_INGEST" -q --report "$tmp/report.html" "$tmp/demo.db" || { echo "FAIL: report"; exit 1; }
sh "$here/report_cli.sh" check "$tmp/report.html" || exit 1
render "$tmp/report.html" "$tmp/report.png" 3000 || exit 1
echo "ok: the demo report renders"
