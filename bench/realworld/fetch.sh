#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/realworld/fetch.sh - the Debian source packages perfgate is tried on, built with their
# own build systems and default flags, cached under $RW_DIR (default build/realworld).
#
# Usage: bench/realworld/fetch.sh [PACKAGE...]   (default: zstd leveldb lz4 jq)
# Prints the paths of the built benchmarks, two lines a package: the package as Debian ships
# it ("base") and the same source with one known change ("change", below); exit 2 when a
# package cannot be fetched or built.
#
# The known changes, what a gate must find:
#   zstd     lib/compress/huf_compress.c compiled at -O1 (a pragma at its top): the Huffman
#            table builder and compressor get slower; nothing else changes.
#   leveldb  table/block_builder.cc compiled at -O0 (likewise): BlockBuilder's methods get
#            slower; their callers (TableBuilder::Add, ...) may show it in total time.
#   lz4      lib/lz4.c compiled at -O1: the block compressor, inlined into
#            LZ4_compress_fast_extState_fastReset, gets ~4% slower (the whole run ~3%).
#   jq       src/jv_parse.c compiled at -O0: the JSON parser in the build's own libjq.so.1,
#            which ./jq (a libtool wrapper script) loads; a third line gives a tree with
#            src/execute.c at -O1 instead (the interpreter's loop, for sampled verdicts).
#   spdlog   src/spdlog.cpp (the compiled library: the pattern formatter) at -Os:
#            every benchmark of formatter-bench gets slower by its own figures, the filter
#            %Y-%m-%d's two by 45-80% on a loaded 2-CPU machine (only on
#            request: bench/realworld/fetch.sh spdlog; cmake, libfmt-dev and libbenchmark-dev
#            are installed when missing).
# Reaches nothing but Debian's archive: the deb-src entry it adds names the same archive as the
# machine's own deb entries.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
RW_DIR=${RW_DIR:-$top/build/realworld}
mkdir -p "$RW_DIR"

die() { echo "realworld: $*" >&2; exit 2; }

# A deb-src twin of every deb entry (deb822 .sources files and one-line .list files).
ensure_deb_src() {
	local f=/etc/apt/sources.list.d/perfgate-deb-src.sources
	if [ -f "$f" ] || grep -rqs '^Types:.*deb-src\|^deb-src ' /etc/apt/sources.list \
		/etc/apt/sources.list.d/; then
		return 0
	fi
	local tmp
	tmp=$(mktemp)
	for s in /etc/apt/sources.list.d/*.sources; do
		[ -f "$s" ] || continue
		# keep only Debian's own archive entries
		awk 'BEGIN { RS = ""; ORS = "\n\n" }
		     /URIs: *https?:\/\/deb\.debian\.org\// { sub(/Types: *deb/, "Types: deb-src"); print }' \
			"$s" >>"$tmp"
	done
	if [ -f /etc/apt/sources.list ]; then
		sed -n 's|^deb \(https\?://deb\.debian\.org/.*\)|deb-src \1|p' /etc/apt/sources.list \
			>"$tmp.list"
		[ -s "$tmp.list" ] && cp "$tmp.list" /etc/apt/sources.list.d/perfgate-deb-src.list
		rm -f "$tmp.list"
	fi
	[ -s "$tmp" ] && cp "$tmp" "$f"
	rm -f "$tmp"
	apt-get update -q >/dev/null || die "apt-get update failed"
}

# Unpack the source of package $1 into $RW_DIR/src/$1 (once).
fetch() {
	local pkg=$1 dir=$RW_DIR/src/$1
	[ -f "$dir/.fetched" ] && return 0
	ensure_deb_src
	rm -rf "$dir" && mkdir -p "$dir"
	# the newest version first; an update whose source the archive does not serve (a
	# security update, say) gives way to the version before it
	local v ok=
	for v in "" $(apt-cache showsrc "$pkg" | awk '/^Version:/ { print $2 }' | sort -Vru); do
		rm -f "$dir"/*
		if (cd "$dir" && apt-get source -q --download-only "$pkg${v:+=$v}" >/dev/null 2>&1)
		then
			ok=1
			break
		fi
	done
	[ -n "$ok" ] || die "apt-get source $pkg failed"
	(cd "$dir" && dpkg-source -x ./*.dsc tree >/dev/null 2>&1) ||
		(cd "$dir" && dpkg-source -x ./*.dsc tree >/dev/null) ||
		die "dpkg-source -x $pkg failed"
	touch "$dir/.fetched"
}

# A copy of the package's tree with FILE compiled at optimization level LEVEL (a pragma at the
# top of the file, so that the package's own build system and flags build everything else).
# Prints the copy's path.
changed_tree() { # package file level [name]
	local src=$RW_DIR/src/$1/tree dst=$RW_DIR/src/$1/${4:-tree-change}
	if [ ! -f "$dst/.changed" ]; then
		rm -rf "$dst"
		cp -a "$src" "$dst"
		find "$dst" -name '*.o' -delete
		sed -i "1i #pragma GCC optimize (\"$3\")" "$dst/$2"
		touch "$dst/.changed"
	fi
	echo "$dst"
}

# Each package's benchmark, built as upstream builds it: zstd's Makefile, leveldb's cmake.
make_zstd() { # tree
	make -C "$1/programs" -j"$(nproc)" zstd >"$RW_DIR/zstd-build.log" 2>&1 ||
		die "zstd build failed (see $RW_DIR/zstd-build.log)"
	echo "$1/programs/zstd"
}

build_zstd() {
	make_zstd "$RW_DIR/src/zstd/tree"
	make_zstd "$(changed_tree zstd lib/compress/huf_compress.c O1)"
}

make_leveldb() { # tree build-dir
	if [ ! -x "$2/db_bench" ]; then
		mkdir -p "$2"
		(cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLEVELDB_BUILD_TESTS=OFF \
			-DLEVELDB_BUILD_BENCHMARKS=ON && cmake --build "$2" -j"$(nproc)" --target db_bench) \
			>"$RW_DIR/leveldb-build.log" 2>&1 ||
			die "leveldb build failed (see $RW_DIR/leveldb-build.log)"
	fi
	echo "$2/db_bench"
}

build_leveldb() {
	make_leveldb "$RW_DIR/src/leveldb/tree" "$RW_DIR/src/leveldb/build"
	make_leveldb "$(changed_tree leveldb table/block_builder.cc O0)" \
		"$RW_DIR/src/leveldb/build-change"
}

# lz4's own Makefile from the top: the library's sources and the command line tool, which
# links them statically
make_lz4() { # tree
	make -C "$1" -j"$(nproc)" >"$RW_DIR/lz4-build.log" 2>&1 ||
		die "lz4 build failed (see $RW_DIR/lz4-build.log)"
	echo "$1/programs/lz4"
}

build_lz4() {
	make_lz4 "$RW_DIR/src/lz4/tree"
	make_lz4 "$(changed_tree lz4 lib/lz4.c O1)"
}

# jq as Debian builds it: its own autotools, libjq shared (Debian's patches), the tool a libtool
# wrapper script in the build tree that runs .libs/jq with the build's .libs/libjq.so.1
make_jq() { # tree
	if [ ! -x "$1/.libs/jq" ]; then
		(cd "$1" && autoreconf -fi && ./configure --disable-docs --disable-valgrind \
			--disable-maintainer-mode && make -j"$(nproc)") >"$RW_DIR/jq-build.log" 2>&1 ||
			die "jq build failed (see $RW_DIR/jq-build.log)"
	fi
	echo "$1/jq"
}

build_jq() {
	local src=$RW_DIR/src/jq/tree base=$RW_DIR/src/jq/tree-base
	# built in a copy: libtool's wrappers hold absolute paths, so the pristine tree stays
	# unbuilt for the changed copies
	if [ ! -f "$base/.copied" ]; then
		rm -rf "$base" && cp -a "$src" "$base" && touch "$base/.copied"
	fi
	make_jq "$base"
	make_jq "$(changed_tree jq src/jv_parse.c O0)"
	make_jq "$(changed_tree jq src/execute.c O1 tree-change-exec)"
}

# spdlog's own cmake, against Debian's libfmt-dev and libbenchmark-dev: formatter-bench, a
# Google Benchmark program (docs/gbench.md) that takes its pattern as its one argument
make_spdlog() { # tree build-dir
	if [ ! -x "$2/bench/formatter-bench" ]; then
		mkdir -p "$2"
		(cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release -DSPDLOG_FMT_EXTERNAL=ON \
			-DSPDLOG_BUILD_BENCH=ON -DSPDLOG_BUILD_EXAMPLE=OFF -DSPDLOG_BUILD_TESTS=OFF &&
			cmake --build "$2" -j"$(nproc)" --target formatter-bench) \
			>"$RW_DIR/spdlog-build.log" 2>&1 ||
			die "spdlog build failed (see $RW_DIR/spdlog-build.log)"
	fi
	echo "$2/bench/formatter-bench"
}

# Debian packages a build needs, installed when missing (as `make realworld` does)
need_debs() {
	dpkg -s "$@" >/dev/null 2>&1 && return 0
	{ apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@"; } \
		>/dev/null || die "cannot install $*"
}

build_spdlog() {
	need_debs cmake libfmt-dev libbenchmark-dev
	make_spdlog "$RW_DIR/src/spdlog/tree" "$RW_DIR/src/spdlog/build"
	make_spdlog "$(changed_tree spdlog src/spdlog.cpp Os)" "$RW_DIR/src/spdlog/build-change"
}

pkgs=("$@")
[ ${#pkgs[@]} -gt 0 ] || pkgs=(zstd leveldb lz4 jq)
for p in "${pkgs[@]}"; do
	declare -F "build_$p" >/dev/null || die "no build recipe for $p"
	fetch "$p"
	"build_$p"
done
