/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `identity TARGET map|exe`: takes the identity of the program TARGET (one
 * a JIT rule names) and then makes anonymous memory executable.  The work
 * is done in libuieident.so (identity_lib.c), because the program's own
 * image must be gone before the kernel lets /proc/self/exe change.
 */
int uie_take_identity(const char *target, const char *how);

int main(int argc, char **argv)
{
	return argc == 3 ? uie_take_identity(argv[1], argv[2]) : 2;
}
