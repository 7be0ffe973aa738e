/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Core benchmark (issue 2).  In one run, side by side:
 *   - object-digest throughput over an ELF with a 1 MB executable segment,
 *     mapped (and, for reference, through pread), against
 *     `openssl speed -evp sha256 -bytes 16384 -seconds 2` on this machine
 *     (goal: ratio >= 0.9);
 *   - policy lookup latency in a 100,000-rule table (goal: < 1000 ns).
 * MB are 10^6 bytes, as in openssl speed's output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "host_platform.h"
#include "uie/err.h"
#include "uie/measure.h"
#include "uie/policy.h"

#define SEG_LEN (1u << 20)
#define NRULES 100000u

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* An ET_DYN x86-64 ELF: one R+X PT_LOAD of SEG_LEN bytes at file offset 4096. */
static int make_elf_fd(void)
{
	size_t len = 4096 + SEG_LEN;
	uint8_t *img = calloc(1, len), *ph = img + 64;
	int fd = memfd_create("core_bench_elf", MFD_CLOEXEC);

	if (!img || fd < 0)
		return -1;
	memcpy(img,
	       "\x7f"
	       "ELF\x02\x01\x01",
	       7);
	img[16] = 3;
	img[18] = 62;
	img[20] = 1;
	img[32] = 64; /* e_phoff */
	img[54] = 56; /* e_phentsize */
	img[56] = 1;  /* e_phnum */
	ph[0] = 1;    /* PT_LOAD */
	ph[4] = 5;    /* R+X */
	put64(ph + 8, 4096);
	put64(ph + 16, 0x401000);
	put64(ph + 24, 0x401000);
	put64(ph + 32, SEG_LEN);
	put64(ph + 40, SEG_LEN);
	put64(ph + 48, 4096);
	for (size_t i = 4096; i < len; i++)
		img[i] = (uint8_t)(i * 131 + (i >> 9));
	if (write(fd, img, len) != (ssize_t)len) {
		close(fd);
		fd = -1;
	}
	free(img);
	return fd;
}

/* Object-digest throughput in MB/s over at least `secs` seconds. */
static double measure_mbps(struct uie_host_platform *hp, int fd, bool map, double secs)
{
	struct uie_host_object ho;
	struct uie_digest d;
	double t0, t;
	unsigned long n = 0;

	if (uie_host_object_open(&ho, fd, map, NULL) != UIE_OK)
		return -1;
	/* Warm the page cache and the code path. */
	if (uie_elf_measure(&hp->pl, &ho.obj, UIE_HASH_SHA256, NULL, &d) != UIE_OK) {
		uie_host_object_close(&ho);
		return -1;
	}
	t0 = now_s();
	do {
		if (uie_elf_measure(&hp->pl, &ho.obj, UIE_HASH_SHA256, NULL, &d) != UIE_OK) {
			uie_host_object_close(&ho);
			return -1;
		}
		n++;
		t = now_s();
	} while (t - t0 < secs);
	uie_host_object_close(&ho);
	return (double)n * SEG_LEN / (t - t0) / 1e6;
}

/* Parses the "sha256 <N>k" line of openssl speed (1000s of bytes per second). */
static double openssl_mbps(void)
{
	FILE *p = popen("openssl speed -evp sha256 -bytes 16384 -seconds 2 2>/dev/null", "r");
	char line[256];
	double k = -1;

	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		char name[32];
		double v;

		if (sscanf(line, "%31s %lfk", name, &v) == 2 && strcasecmp(name, "sha256") == 0)
			k = v;
	}
	pclose(p);
	return k < 0 ? -1 : k * 1000 / 1e6;
}

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int cmp_rule(const void *a, const void *b)
{
	return uie_policy_rule_cmp(a, b, UIE_SHA256_LEN);
}

/* Mean ns per lookup over random present and absent digests. */
static double lookup_ns(unsigned long *allows)
{
	struct uie_policy_rule *rules = calloc(NRULES, sizeof(*rules));
	size_t cap = uie_policy_encoded_len(UIE_HASH_SHA256, NRULES), len;
	uint8_t *tab = malloc(cap), (*probe)[32];
	const unsigned nprobe = 1u << 16, rounds = 32;
	struct uie_policy pol;
	double t0, t1, ns = -1;

	probe = malloc((size_t)nprobe * 32);
	if (!rules || !tab || !probe)
		goto out;
	for (unsigned i = 0; i < NRULES; i++) {
		for (int j = 0; j < 32; j += 8)
			put64(rules[i].digest + j, next());
		rules[i].event = (uint8_t)(1 + i % 3);
		rules[i].role = (uint8_t)(1 + i % 5);
		rules[i].action = (uint8_t)(i % 7 == 0 ? UIE_DENY : UIE_ALLOW);
	}
	qsort(rules, NRULES, sizeof(*rules), cmp_rule);
	if (uie_policy_encode(UIE_MODE_ENFORCE, UIE_DENY, UIE_HASH_SHA256, rules, NRULES, tab, cap, &len) !=
		    UIE_OK ||
	    uie_policy_load(tab, len, &pol) != UIE_OK)
		goto out;
	/* Half the probes hit a rule, half miss (random digests). */
	for (unsigned i = 0; i < nprobe; i++) {
		if (i % 2)
			memcpy(probe[i], rules[next() % NRULES].digest, 32);
		else
			for (int j = 0; j < 32; j += 8)
				put64(probe[i] + j, next());
	}
	*allows = 0;
	t0 = now_s();
	for (unsigned r = 0; r < rounds; r++) {
		for (unsigned i = 0; i < nprobe; i++) {
			uint8_t dec;
			uint16_t reason;

			uie_policy_lookup(&pol, (uint8_t)(1 + i % 3), (uint8_t)(1 + i % 5), probe[i], &dec,
					  &reason);
			*allows += dec;
		}
	}
	t1 = now_s();
	ns = (t1 - t0) * 1e9 / ((double)nprobe * rounds);
out:
	free(rules);
	free(tab);
	free(probe);
	return ns;
}

int main(void)
{
	struct uie_host_platform hp;
	double map_mbps, pread_mbps, ossl, ns;
	unsigned long allows = 0;
	int fd;

	if (uie_host_platform_init(&hp) != UIE_OK || (fd = make_elf_fd()) < 0) {
		fprintf(stderr, "core_bench: setup failed\n");
		return 1;
	}
	map_mbps = measure_mbps(&hp, fd, true, 2.0);
	pread_mbps = measure_mbps(&hp, fd, false, 2.0);
	ossl = openssl_mbps();
	ns = lookup_ns(&allows);
	close(fd);
	uie_host_platform_fini(&hp);
	if (map_mbps < 0 || pread_mbps < 0 || ossl <= 0 || ns < 0) {
		fprintf(stderr, "core_bench: a measurement failed (openssl speed: %.1f)\n", ossl);
		return 1;
	}
	printf("%-44s %12s %12s %8s %s\n", "metric", "value", "reference", "ratio", "goal");
	printf("%-44s %9.1f MB/s %9.1f MB/s %8.3f %s\n", "object digest, 1 MB exec segment, mapped", map_mbps,
	       ossl, map_mbps / ossl, map_mbps / ossl >= 0.9 ? ">= 0.9 met" : ">= 0.9 MISSED");
	printf("%-44s %9.1f MB/s %9.1f MB/s %8.3f %s\n", "object digest, 1 MB exec segment, pread",
	       pread_mbps, ossl, pread_mbps / ossl, "(reference only)");
	printf("%-44s %10.1f ns %12s %8s %s\n", "policy lookup, 100,000 rules", ns, "-", "-",
	       ns < 1000 ? "< 1000 ns met" : "< 1000 ns MISSED");
	printf("(reference: openssl speed -evp sha256 -bytes 16384 -seconds 2; %lu allows)\n", allows);
	return 0;
}
