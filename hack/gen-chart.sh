#!/usr/bin/env bash
# gen-chart.sh: copies the templates (templates/*.yaml and templates/_*.tpl,
# the files templates/embed.go embeds) into charts/tfjob/templates, so that
# the chart renders with the very files tfgen renders with. The copy is
# generated, never edited: test/helm fails when it drifts. NOTES.txt and
# tests/ exist only in the chart and are left alone.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SRC=$ROOT/templates
DST=$ROOT/charts/tfjob/templates

mkdir -p "$DST"
# Drop the previous copy (a template removed from templates/ must go too).
find "$DST" -maxdepth 1 -type f \( -name '*.yaml' -o -name '_*.tpl' \) -delete
shopt -s nullglob
for f in "$SRC"/*.yaml "$SRC"/_*.tpl; do
	cp "$f" "$DST/"
done
