#!/bin/sh
# hta_findings on generated jobs (tools/gen_trace.py): each of hta-sqlite's rules fires with the
# cost planted for it (within 10%), and a healthy job gives none of them (findings_planted.py).
# env: HTA_INGEST, HTA_EXT (absolute). Exit 0 pass, 1 fail, 77 skip (no python3).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${HTA_INGEST:=$top/hta-ingest}" "${HTA_EXT:=$top/hta.so}"
command -v python3 >/dev/null 2>&1 || { echo "skip: no python3"; exit 77; }
work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
HTA_INGEST=$HTA_INGEST HTA_EXT=$HTA_EXT HTA_TOOLS=$top/tools python3 "$here/findings_planted.py" "$work"
