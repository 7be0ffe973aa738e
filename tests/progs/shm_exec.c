/* SPDX-License-Identifier: Apache-2.0 */
/* System V shared memory attached executable (SHM_EXEC). */
#include <sys/ipc.h>
#include <sys/shm.h>

#include "attempt.h"

int main(void)
{
	int id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	void *p;

	if (id < 0)
		return setup_failed("shmget");
	p = shmat(id, NULL, SHM_EXEC);
	shmctl(id, IPC_RMID, NULL);
	if (p == (void *)-1)
		return refused("shmat(SHM_EXEC)", errno);
	return gained("executable System V shared memory");
}
