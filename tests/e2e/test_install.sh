# SPDX-License-Identifier: MIT
# make install and make uninstall into a staging directory (DESTDIR) under another PREFIX: the
# installed binary runs, records (the exact calls of ./calls) and finds the preload library
# where it was installed (LD_PRELOAD of the benchmark); the manual page renders without groff
# warnings and has every command's section; the bash completion completes the subcommands,
# every option of each subcommand's getopt table (tools/cli_tables.py) and the words of
# options that take one of a few; uninstall removes every file it installed.
# make deb builds a Debian package whose Depends name the packages of the libraries the binary
# links; dpkg -i installs it, perfgate version runs from /usr/bin, dpkg -r removes it all again
# (skipped when perfgate is installed on this machine already: the test must leave it as it
# was). make dist writes a tarball from which make builds a perfgate of the same version.
# make demo installs what building and running the demo needs, no browser, database server or
# Go (make check does, for the tests that use them).
source "$(dirname "$0")/lib.sh"
SRC=$PERFGATE_SRCDIR
MK=(make -C "$SRC" --no-print-directory)
[ "${PERFGATE_BUILD:-build}" != build-asan ] || MK+=(SANITIZE=1)
D=$TMP/root
P=$D/opt/pg

"${MK[@]}" install DESTDIR="$D" PREFIX=/opt/pg >"$TMP/install.log" 2>&1 ||
	{ cat "$TMP/install.log"; fail "make install failed"; }
for f in bin/perfgate lib/perfgate/libperfgate-preload.so share/man/man1/perfgate.1 \
	share/bash-completion/completions/perfgate; do
	check "installed: $f" test -s "$P/$f"
done
check "installed: bin/perfgate is executable" test -x "$P/bin/perfgate"
check_eq "the installed files" 4 "$(find "$D" -type f | wc -l)"

# the installed binary: help, version, a tiny recording
check_eq "installed: version" "$("$PERFGATE" version)" "$("$P/bin/perfgate" version)"
"$P/bin/perfgate" record --help >"$TMP/help"
check_contains "installed: record --help" "$TMP/help" '^usage: perfgate record'
"$P/bin/perfgate" record -q --no-sample -o "$TMP/run.json" -r 2 -f count_a -f count_b -- ./calls
calls "$TMP/run.json" >"$TMP/calls"
printf 'count_a 1000\ncount_b 37\n' >"$TMP/want"
expect_same "$TMP/want" "$TMP/calls"
# the exception fix preloads the installed library (found from the binary's own directory)
"$P/bin/perfgate" record -q --no-sample -o "$TMP/e.json" -r 1 --exception-fix \
	-f ./calls:count_a -- sh -c 'echo "$LD_PRELOAD"; ./calls >/dev/null' >"$TMP/preload"
# (the last line: the sampled first pass runs the command before, without it)
check_eq "installed: the preload library" "$(realpath "$P/lib/perfgate/libperfgate-preload.so")" \
	"$(tail -n 1 "$TMP/preload")"

# the manual page
MANWIDTH=100 man -l "$P/share/man/man1/perfgate.1" >"$TMP/man" 2>"$TMP/man.err"
check "man: no warnings" test ! -s "$TMP/man.err"
if command -v groff >/dev/null; then
	check "groff: no warnings" test -z "$(groff -man -Tutf8 -ww -z \
		"$P/share/man/man1/perfgate.1" 2>&1)"
fi
for cmd in record ab report compare merge vote folded flamegraph pprof; do
	check_contains "man: the $cmd section" "$TMP/man" "^ *usage: perfgate $cmd"
done
check_contains "man: ab's --offcpu-stacks" "$TMP/man" '--offcpu-stacks, -q'

# the bash completion: every subcommand and every option of the tables
complete_words() { # WORDS...: what completing the last word offers, sorted
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _perfgate
		printf "%s\n" "${COMPREPLY[@]}" | sort' _ "$P/share/bash-completion/completions/perfgate" \
		"$@"
}
check_eq "completion: subcommands" "ab compare flamegraph folded help history merge pprof record \
report version vote" "$(complete_words perfgate '' | grep -v '^-' | xargs)"
check_eq "completion: ab --offcpu-s" --offcpu-stacks "$(complete_words perfgate ab --offcpu-s)"
check_eq "completion: --metric" "cpu self total" \
	"$(complete_words perfgate compare --metric '' | xargs)"
check_eq "completion: vote --system" "gerrit github" \
	"$(complete_words perfgate -q vote r.json --system '' | xargs)"
python3 "$SRC/tools/cli_tables.py" "$SRC" >"$TMP/tables"
while read -r cmd opt; do
	opt=${opt%%=*}
	complete_words perfgate "$cmd" -- >"$TMP/offered"
	check "completion: $cmd $opt" grep -qx -- "$opt" "$TMP/offered"
done <"$TMP/tables"

# uninstall removes what install put there
"${MK[@]}" uninstall DESTDIR="$D" PREFIX=/opt/pg >"$TMP/uninstall.log" 2>&1 ||
	{ cat "$TMP/uninstall.log"; fail "make uninstall failed"; }
check_eq "uninstall: no files left" "" "$(find "$D" -type f)"
check "uninstall: lib/perfgate removed" test ! -e "$P/lib/perfgate"

# the packages make demo and make check would install (make -n: nothing is run)
make -C "$SRC" -n --no-print-directory demo 2>&1 | grep -A2 'apt-get install' >"$TMP/demo.n"
check_contains "make demo installs clang" "$TMP/demo.n" '\<clang\>'
for pkg in chromium postgresql golang-go libbenchmark-dev; do
	check "make demo does not install $pkg" not grep -qw -- "$pkg" "$TMP/demo.n"
done
make -C "$SRC" -n --no-print-directory deps 2>&1 | grep 'apt-get install' >"$TMP/deps.n"
for pkg in chromium postgresql golang-go clang; do
	check_contains "make deps installs $pkg" "$TMP/deps.n" "apt-get install .*\<$pkg\>"
done

# the version: one string, VERSION's number first
VER=$(cat "$SRC/VERSION")
check "VERSION is X.Y.Z" grep -Eqx '[0-9]+\.[0-9]+\.[0-9]+' "$SRC/VERSION"
check_eq "perfgate --version is perfgate version" "$("$PERFGATE" version)" "$("$PERFGATE" --version)"
case $("$PERFGATE" version) in
"perfgate $VER" | "perfgate $VER (git "*")") check_eq "version from VERSION" ok ok ;;
*) check_eq "version from VERSION" "perfgate $VER..." "$("$PERFGATE" version)" ;;
esac

# make deb: the package's files and its dependencies
"${MK[@]}" deb >"$TMP/deb.log" 2>&1 || { cat "$TMP/deb.log"; fail "make deb failed"; }
DEB=$(ls "$SRC/${PERFGATE_BUILD:-build}"/perfgate_"$VER"_*.deb)
dpkg-deb -f "$DEB" Package Version Depends >"$TMP/control"
check_contains "deb: Package" "$TMP/control" '^Package: perfgate$'
check_contains "deb: Version" "$TMP/control" "^Version: $VER\$"
# one Depends entry per package of a library the binary links directly (its NEEDED entries,
# found where ldd finds them, their package by dpkg -S)
ldd "$PERFGATE" >"$TMP/ldd"
readelf -d "$PERFGATE" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | while read -r so; do
	lib=$(awk -v so="$so" '$1 == so && $3 ~ /^\// { print $3 }' "$TMP/ldd")
	[ -n "$lib" ] || continue
	dpkg -S "$lib" 2>/dev/null || dpkg -S "$(realpath "$lib")" 2>/dev/null || true
done | sed 's/:.*//; s/,.*//' | sort -u >"$TMP/libpkgs"
check "deb: some linked library has a package" test -s "$TMP/libpkgs"
while read -r pkg; do
	check_contains "deb: Depends names $pkg" "$TMP/control" "[ ,]$pkg\( \|,\|\$\)"
done <"$TMP/libpkgs"
dpkg-deb -c "$DEB" | awk '{ print $NF }' | grep -v '/$' | sort >"$TMP/debfiles"
printf '%s\n' ./usr/bin/perfgate ./usr/lib/perfgate/libperfgate-preload.so \
	./usr/share/bash-completion/completions/perfgate ./usr/share/man/man1/perfgate.1.gz \
	>"$TMP/want"
expect_same "$TMP/want" "$TMP/debfiles"

# dpkg -i, perfgate from /usr/bin, dpkg -r: only on a machine without a perfgate of its own
if dpkg-query -W -f '${Status}' perfgate 2>/dev/null | grep -q 'ok installed' ||
	[ -e /usr/bin/perfgate ]; then
	echo "note: perfgate is installed on this machine: dpkg -i/-r of the package skipped" >&2
else
	ON_EXIT='dpkg -r perfgate >/dev/null 2>&1'
	check "dpkg -i" dpkg -i "$DEB"
	check_eq "/usr/bin/perfgate version" "$("$PERFGATE" version)" "$(/usr/bin/perfgate version)"
	MANWIDTH=100 man -l /usr/share/man/man1/perfgate.1.gz >"$TMP/man.deb" 2>/dev/null
	check_contains "the package's man page" "$TMP/man.deb" '^ *usage: perfgate ab'
	check "dpkg -r" dpkg -r perfgate
	ON_EXIT=""
	for f in /usr/bin/perfgate /usr/lib/perfgate /usr/share/man/man1/perfgate.1.gz \
		/usr/share/bash-completion/completions/perfgate; do
		check "dpkg -r removed $f" test ! -e "$f"
	done
	check "dpkg -r: no longer installed" not sh -c \
		"dpkg-query -W -f '\${Status}' perfgate 2>/dev/null | grep -q 'ok installed'"
fi

# make dist: a tarball of HEAD (a git checkout only) from which make builds the same version
if [ -e "$SRC/.git" ]; then
	"${MK[@]}" dist >"$TMP/dist.log" 2>&1 || { cat "$TMP/dist.log"; fail "make dist failed"; }
	tar -xzf "$SRC/${PERFGATE_BUILD:-build}/perfgate-$VER.tar.gz" -C "$TMP"
	check "dist: unpacked into perfgate-$VER" test -f "$TMP/perfgate-$VER/Makefile"
	# (unoptimized: the test checks that it builds, not how fast it runs)
	CFLAGS=-O0 make -C "$TMP/perfgate-$VER" -j2 --no-print-directory all \
		>"$TMP/distbuild.log" 2>&1 || { tail -n 30 "$TMP/distbuild.log"; fail "dist: make failed"; }
	check_eq "dist: perfgate version" "perfgate $(cat "$TMP/perfgate-$VER/.version")" \
		"$("$TMP/perfgate-$VER/perfgate" version)"
	case $(cat "$TMP/perfgate-$VER/.version") in
	"$VER" | "$VER (git "*")") check_eq "dist: .version from VERSION" ok ok ;;
	*) check_eq "dist: .version from VERSION" "$VER..." "$(cat "$TMP/perfgate-$VER/.version")" ;;
	esac
else
	echo "note: not a git checkout: make dist skipped" >&2
fi
