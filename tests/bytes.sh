# shellcheck shell=sh
# SPDX-License-Identifier: Apache-2.0
# Byte edits that tests make to show a refusal (sourced; POSIX sh: vm/ and
# tests/e2e/ scripts alike).

# flip_byte FILE OFFSET: inverts the byte at OFFSET, so that it changes
# whatever it was (writing a fixed value left a random byte that already had
# it unchanged: 1 run in 256).  Returns 1, naming FILE, when it cannot.
flip_byte() {
	_b=$(od -An -tu1 -j "$2" -N 1 "$1" | tr -d ' ')
	if [ -z "$_b" ]; then
		echo "flip_byte: $1 has no byte $2" >&2
		return 1
	fi
	# shellcheck disable=SC2059 # the format is the byte, as an octal escape
	printf "\\$(printf %03o $((_b ^ 255)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none ||
		{
			echo "flip_byte: cannot write $1" >&2
			return 1
		}
}
