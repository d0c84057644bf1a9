#!/usr/bin/env bash
# compile.sh: pins every requirements.in under hack/python into the
# requirements.txt beside it, with the hashes of every file PyPI serves for
# each pinned version (pip-tools' pip-compile, in a throwaway virtualenv).
# Run it after editing a requirements.in; make tf then installs the new pins.
# The tensorflow distribution is left out: tf-keras requires it, where
# tensorflow-cpu provides the same module.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"${PYTHON:-python3}" -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install --quiet --disable-pip-version-check pip-tools==7.6.2
for in in "$here"/*/requirements.in; do
	(cd "$(dirname "$in")" && "$tmp/venv/bin/pip-compile" --quiet --generate-hashes --strip-extras \
		--unsafe-package tensorflow \
		--no-emit-index-url --no-emit-find-links --output-file requirements.txt requirements.in)
done
