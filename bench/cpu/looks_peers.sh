#!/usr/bin/env bash
# pfstmo's mantiuk06 and fattal02 (defaults, as `tonekit compare` runs them: pfsgamma -g 2.2) on
# every PFM in IN_DIR (looks_eval --write-pfm IN_DIR), PNGs into OUT_DIR/<op>/<name>.png for
# `looks_eval png=OUT_DIR/<op>:pfstmo-<op>`. Usage: looks_peers.sh IN_DIR OUT_DIR
set -euo pipefail
in=$1 out=$2
for op in mantiuk06 fattal02; do
  mkdir -p "$out/$op"
  for f in "$in"/*.pfm; do
    n=$(basename "$f" .pfm)
    [ -s "$out/$op/$n.png" ] && continue
    pfsinpfm "$f" | "pfstmo_$op" | pfsgamma -g 2.2 | pfsout "$out/$op/$n.png"
  done
done
