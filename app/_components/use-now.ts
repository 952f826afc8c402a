import { useEffect, useState } from 'react';

/** The clock for durations still growing: it ticks only while `ticking`, so settled views never re-render. */
export function useNow(ticking: boolean, everyMs = 250): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!ticking) return;
    const t = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(t);
  }, [ticking, everyMs]);
  return now;
}
