#!/usr/bin/env bash
# Checks the relative links of the Markdown pages: every [text](target) that
# is not a URL must name a file or directory of the repository, and a
# #fragment must name a heading of the page it points to (GitHub's anchors:
# lower case, punctuation dropped, spaces as -). Web links are not fetched.
#
# Usage: scripts/links_check.sh [FILE.md ...]; default README.md and docs/*.md.
# Exit 1, listing file:line and the link, if any link is broken.
set -uo pipefail

cd "$(dirname "$0")/.."

# anchors FILE: the anchor of every heading of FILE, one a line.
anchors() {
	grep -E '^#{1,6} ' "$1" | sed -E 's/^#+ +//' |
		tr '[:upper:]' '[:lower:]' |
		sed -E 's/[^[:alnum:] _-]//g; s/ /-/g'
}

files=("$@")
[ ${#files[@]} -eq 0 ] && files=(README.md docs/*.md)

bad=0
for f in "${files[@]}"; do
	dir=$(dirname "$f")
	# Links outside fenced code blocks, as "line<TAB>target".
	while IFS=$'\t' read -r line target; do
		case $target in
		http://* | https://* | mailto:*) continue ;;
		esac
		path=${target%%#*}
		frag=
		[ "$path" != "$target" ] && frag=${target#*#}
		if [ -z "$path" ]; then
			dest=$f
		else
			dest=$dir/$path
		fi
		if [ ! -e "$dest" ]; then
			echo "$f:$line: $target: no such file"
			bad=1
			continue
		fi
		if [ -n "$frag" ] && [ -f "$dest" ] && [[ $dest == *.md ]]; then
			if ! anchors "$dest" | grep -qxF -- "$frag"; then
				echo "$f:$line: $target: no heading #$frag in $dest"
				bad=1
			fi
		fi
	done < <(awk '
		/^[ \t]*```/ { fence = !fence; next }
		fence { next }
		{
			s = $0
			while (match(s, /\]\([^) \t]+\)/)) {
				print NR "\t" substr(s, RSTART + 2, RLENGTH - 3)
				s = substr(s, RSTART + RLENGTH)
			}
		}' "$f")
done

[ $bad -eq 0 ] || {
	echo "broken links (paths are relative to the page that holds them)"
	exit 1
}
