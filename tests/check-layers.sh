#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/check-layers.sh - the layering of perfgate's sources, checked on their #include lines
# (`make check-layers`; tests/e2e/test_layers.sh runs it in `make check`).
#
#   core/                 only core/
#   formats/              core/ (the on-disk formats: run files, results, folded stacks)
#   diff/                 core/, and pure computation: no core/log.h, no stdio output or files
#   runner/               core/, formats/, diff/, bpf/; its subsystems one directory each
#                         (runner/session/recorder.h), of which the pure ones, runner/select/
#                         and runner/budget/ (the choice of the traced functions), include
#                         neither bpf/ nor libbpf nor a skeleton nor the disassembler
#   reporters/            core/, formats/, diff/
#   history/              core/, formats/, diff/; the only layer that includes the database
#                         libraries' headers (<sqlite3.h>, <libpq-fe.h>), not even cli/ does
#   cli/                  anything
#   bpf/                  core/ (the shared histogram buckets)
# A layer may always include its own headers and the system's (<...>), except that only
# runner/ (and cli/) may include <bpf/...> (libbpf) or a BPF skeleton (*.skel.h), each skeleton
# only its owner (runner/probes/probes.c, runner/profile/sampler.c), and only
# runner/profile/codesum.c the disassembler (<capstone/...>).
#
# Prints one line per violation, "FILE:LINE: #include X: LAYER may not include OTHER", and
# exits 1 if there is any, 0 otherwise, 2 on bad usage.
# Usage: tests/check-layers.sh [ROOT]   (ROOT: the source tree, default the repository)
set -u
root=${1:-$(dirname "$0")/..}
cd "$root" || exit 2

# allowed[LAYER]: the layers LAYER may include besides its own
declare -A allowed=(
	[core]=""
	[formats]="core"
	[diff]="core"
	[runner]="core formats diff bpf"
	[reporters]="core formats diff"
	[history]="core formats diff"
	[cli]="*"
	[bpf]="core"
)
# the runner's pure subsystems: no BPF of any kind (runner/budget/ links without libbpf)
PURE_RUNNER="select budget"
bad=0
INCLUDE='^[[:space:]]*#[[:space:]]*include[[:space:]]*\([<"][^>"]*[>"]\).*'
# what diff/ may not call (outside comments): logging, output, opening files
DIFF_IO='\<((pg_(log|err|warn|info|debug)|v?f?printf|f?puts|putchar|fwrite|perror|f?open|fdopen'
DIFF_IO+='|open_memstream)[[:space:]]*\(|std(out|err)\>)'

layer_of() { # PATH (relative to the root) -> layer name, or "" outside the layers
	local top=${1%%/*}
	case $top in
	core | formats | diff | runner | reporters | history | cli | bpf) echo "$top" ;;
	*) echo "" ;;
	esac
}

# normalize DIR/REL ("runner/../core/run.h" -> "core/run.h")
# PATH -> "runner/SUB" when PATH is in one of the runner's pure subsystems, else ""
pure_runner() {
	local rest=${1#runner/} sub
	[ "$rest" != "$1" ] || return 0
	sub=${rest%%/*}
	[ "$sub" != "$rest" ] && [[ " $PURE_RUNNER " == *" $sub "* ]] && echo "runner/$sub"
	return 0
}

normalize() {
	local IFS=/ part out=()
	for part in $1; do
		case $part in
		'' | .) ;;
		..) [ ${#out[@]} -gt 0 ] && unset 'out[${#out[@]}-1]' ;;
		*) out+=("$part") ;;
		esac
	done
	echo "${out[*]}"
}

violation() { # FILE LINE INCLUDE MESSAGE
	echo "$1:$2: #include $3: $4"
	bad=1
}

# the database libraries' headers
DB_HEADERS='^[[:space:]]*#[[:space:]]*include[[:space:]]*<(sqlite3\.h|libpq-fe\.h|libpq/|postgresql/)'

while IFS= read -r file; do
	from=$(layer_of "$file")
	[ -n "$from" ] || continue
	if [ "$from" != history ]; then
		while IFS=: read -r line text; do
			inc=$(sed -n "s/$INCLUDE/\\1/p" <<<"$text")
			violation "$file" "$line" "$inc" "only history/ may include a database library"
		done < <(grep -nE "$DB_HEADERS" "$file")
	fi
	[ "${allowed[$from]}" = "*" ] && continue
	pure=$(pure_runner "$file")
	while IFS=: read -r line text; do
		inc=$(sed -n "s/$INCLUDE/\\1/p" <<<"$text")
		[ -n "$inc" ] || continue
		name=${inc:1:${#inc}-2}
		if [[ $inc == \<* ]]; then
			if [[ $name == bpf/* && $from != runner && $from != bpf ]]; then
				violation "$file" "$line" "$inc" "$from may not include libbpf"
			elif [[ $name == bpf/* && -n $pure ]]; then
				violation "$file" "$line" "$inc" "$pure/ is pure: no libbpf"
			fi
			if [[ $name == capstone/* && $file != runner/profile/codesum.c ]]; then
				violation "$file" "$line" "$inc" \
					"only runner/profile/codesum.c includes the disassembler"
			fi
			continue
		fi
		if [[ $name == *.skel.h ]]; then
			# one owner per skeleton: the rest goes through its API
			owner=runner/probes/probes.c
			[ "$name" = sample.skel.h ] && owner=runner/profile/sampler.c
			[ "$file" = "$owner" ] ||
				violation "$file" "$line" "$inc" \
					"only $owner includes $name"
			continue
		fi
		target=$(normalize "$(dirname "$file")/$name")
		to=$(layer_of "$target")
		if [ -z "$to" ]; then
			violation "$file" "$line" "$inc" \
				"$from may not include a file outside the layers"
			continue
		fi
		if [ "$from" = diff ] && [ "$target" = core/log.h ]; then
			violation "$file" "$line" "$inc" "diff/ does no logging"
			continue
		fi
		if [ -n "$pure" ] && [ "$to" = bpf ]; then
			violation "$file" "$line" "$inc" "$pure/ is pure: no bpf/"
			continue
		fi
		[ "$to" = "$from" ] && continue
		[[ " ${allowed[$from]} " == *" $to "* ]] ||
			violation "$file" "$line" "$inc" "$from may not include $to"
	done < <(grep -n '^[[:space:]]*#[[:space:]]*include' "$file")
	# diff/ is pure computation: no logging, no output, no files
	if [ "$from" = diff ]; then
		while IFS=: read -r line text; do
			text=${text#"${text%%[![:space:]]*}"}	# without its indentation
			echo "$file:$line: $text: diff/ does no I/O and no logging"
			bad=1
		done < <(grep -nE "$DIFF_IO" "$file" | grep -vE '^[0-9]+:[[:space:]]*(/?\*|//)')
	fi
done < <(find core formats diff runner reporters history cli bpf \
	\( -name '*.c' -o -name '*.h' \) 2>/dev/null | sort)
exit $bad
