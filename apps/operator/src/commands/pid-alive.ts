/** Whether another process runs with the pid a state file names (this process never counts). */
export const isAlive = (pid: number | undefined): boolean => {
  if (!pid || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};
