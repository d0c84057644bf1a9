#!/usr/bin/env bash
# install.sh VENV REQUIREMENTS MODULE...: installs the pinned Python packages of
# REQUIREMENTS (a requirements.txt with hashes, from compile.sh) into the
# virtualenv VENV, cached as hack/tools/install.sh caches the Go tools.
#
# The stamp VENV/.tfgen.stamp records what was installed: the interpreter's
# version and the hashes of REQUIREMENTS and of this script. When it matches,
# nothing is done; otherwise VENV is made anew. pip checks every download
# against the hashes (--require-hashes) and installs nothing but what the
# file names (--no-deps), wheels only. PYTHON picks the interpreter (default
# python3; the pins are for CPython 3.11 on Linux). Then each MODULE must
# import.
set -euo pipefail

[[ $# -ge 3 ]] || { echo "usage: $0 VENV REQUIREMENTS MODULE..." >&2; exit 2; }
venv=$1 req=$2
shift 2
python=${PYTHON:-python3}
name=$(basename "$venv")
log() { echo "install.sh: $*" >&2; }

mkdir -p "$(dirname "$venv")"
if command -v flock >/dev/null; then
	exec 9>"$venv.lock"
	flock 9
fi

want="$("$python" -c 'import platform; print(platform.python_implementation(), platform.python_version())') $(cat "$req" "$0" | sha256sum | cut -c1-16)"
if [[ -f $venv/.tfgen.stamp && $(<"$venv/.tfgen.stamp") == "$want" && -x $venv/bin/python ]]; then
	log "$name: up to date"
	exit 0
fi

log "$name: installing $req into $venv ..."
start=$(date +%s)
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
	--require-hashes --no-deps --only-binary=:all: -r "$req"
for m in "$@"; do
	TF_CPP_MIN_LOG_LEVEL=2 "$venv/bin/python" -c "import $m" || { log "$name: cannot import $m"; exit 1; }
done
echo "$want" >"$venv/.tfgen.stamp"
log "$name: installed in $(($(date +%s) - start))s: $(cd "$venv" && bin/python -m pip freeze --disable-pip-version-check | tr '\n' ' ')"
