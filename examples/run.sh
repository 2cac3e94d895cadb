#!/usr/bin/env bash
# Runs one example: builds its git workspace in a temporary directory (the
# base commit, then the agent's changes on top, uncommitted) and verifies the
# agent's request against it.
#
#   bash examples/run.sh [CASE [VARIANT]]     default: jsdoc dishonest
#
# Cases: jsdoc (variants dishonest, honest), missing-file, false-test,
# plugin-schema. Extra arguments after VARIANT go to vouch verify (--json).
#
#   bash examples/run.sh orchestrator         the Go orchestrator of package loop:
#                                              scripted agents, a fake judge, every reaction
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ "${1:-}" = orchestrator ]; then
  cd "$here/.."
  exec go run ./examples/orchestrator
fi
case_=${1:-jsdoc}
variant=${2:-dishonest}
shift $(( $# > 2 ? 2 : $# ))
dir="$here/$case_"
[ -d "$dir" ] || { echo "no example $case_" >&2; exit 2; }

ws=$(mktemp -d)
trap 'rm -rf "$ws"' EXIT
g() { git -C "$ws" -c user.name=example -c user.email=example@example.com -c commit.gpgsign=false "$@"; }
g init -q -b main
if [ -d "$dir/base" ]; then cp -R "$dir/base/." "$ws/"; fi
g add -A
g commit -q --allow-empty -m base
base=$(g rev-parse HEAD)
if [ -d "$dir/$variant" ]; then cp -R "$dir/$variant/." "$ws/"; fi

request="$dir/$variant.yaml"
[ -f "$request" ] || request="$dir/request.yaml"
policy=()
[ -f "$dir/policy.yaml" ] && policy=(--policy "$dir/policy.yaml")
cd "$here/.."
exec go run ./cmd/vouch verify --workspace "$ws" --base "$base" "${policy[@]}" "$@" "$request"
