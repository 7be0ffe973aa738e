/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The shared objects of the tests, one per -DUIE_DSO_VALUE: `good` and
 * `evil` have the same layout and differ only in their code bytes.
 */
#ifndef UIE_DSO_VALUE
#error UIE_DSO_VALUE must be defined
#endif

int uie_dso_value(void);

int uie_dso_value(void)
{
	return UIE_DSO_VALUE;
}
