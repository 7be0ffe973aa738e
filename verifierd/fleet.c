/* SPDX-License-Identifier: Apache-2.0 */
#include "fleet.h"

#include <stdlib.h>
#include <string.h>

#include "uie/buf.h"
#include "uie/err.h"

enum {
	C_ARK,
	C_ASK,
	C_SIMULATED,
	C_MIN_TCB,
	C_ABI_MAJOR,
	C_ABI_MINOR,
	C_VMPL,
	C_ANY,
	C_MEASUREMENTS
};

static int cert_of(const PGresult *res, int col, X509 **out)
{
	const char *s = PQgetvalue(res, 0, col);

	if (PQgetisnull(res, 0, col))
		return UIE_OK;
	return uie_snp_cert_parse_alloc((const uint8_t *)s, strlen(s), out);
}

static int from_row(const PGresult *res, struct vd_fleet_trust *f)
{
	struct uie_snp_policy *pol = &f->pol;
	uint8_t tcb[8];
	size_t n = 0;
	int r;

	if ((r = cert_of(res, C_ARK, &f->t.ark)) != UIE_OK || (r = cert_of(res, C_ASK, &f->t.ask)) != UIE_OK)
		return r;
	f->t.simulated = PQgetvalue(res, 0, C_SIMULATED)[0] == 't';
	f->t.pol = pol;
	if (!PQgetisnull(res, 0, C_MIN_TCB)) {
		if ((r = vd_db_bytea(res, 0, C_MIN_TCB, tcb, sizeof(tcb))) != UIE_OK)
			return r;
		pol->check_min_tcb = true;
		pol->min_tcb = uie_le64(tcb);
	}
	pol->min_abi_major = (uint8_t)vd_db_u64(res, 0, C_ABI_MAJOR);
	pol->min_abi_minor = (uint8_t)vd_db_u64(res, 0, C_ABI_MINOR);
	pol->check_vmpl = true;
	pol->vmpl = (uint32_t)vd_db_u64(res, 0, C_VMPL);
	if (PQgetvalue(res, 0, C_ANY)[0] == 't')
		return UIE_OK; /* no list: any measurement */
	if ((r = vd_db_bytea_alloc(res, 0, C_MEASUREMENTS, &f->measurements, &n)) != UIE_OK)
		return r;
	if (n % UIE_SNP_MEASUREMENT_LEN)
		return UIE_E_FORMAT;
	pol->measurements = (const uint8_t(*)[UIE_SNP_MEASUREMENT_LEN])f->measurements;
	pol->nmeasurements = n / UIE_SNP_MEASUREMENT_LEN;
	f->accepts_none = n == 0;
	return UIE_OK;
}

int vd_fleet_load_alloc(struct vd_conn *c, const char *name, struct vd_fleet_trust *f)
{
	PGresult *res;
	int r;

	memset(f, 0, sizeof(*f));
	if (!(res = vd_db_query_key(
		      c, "loading a fleet",
		      "SELECT ark_pem, ask_pem, simulated, min_tcb, min_abi_major, min_abi_minor, "
		      "vmpl, any_measurement, measurements FROM fleets WHERE name = $1",
		      name)))
		return UIE_E_IO;
	r = PQntuples(res) == 1 ? from_row(res, f) : UIE_E_NOTFOUND;
	PQclear(res);
	if (r != UIE_OK)
		vd_fleet_trust_free(f);
	return r;
}

void vd_fleet_trust_free(struct vd_fleet_trust *f)
{
	X509_free(f->t.ark);
	X509_free(f->t.ask);
	free(f->measurements);
	memset(f, 0, sizeof(*f));
}
