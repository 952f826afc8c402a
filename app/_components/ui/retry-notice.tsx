import { Button } from './button';
import { Notice } from './notice';

/** What could not be loaded, with a Try again button that loads it again. */
export function RetryNotice({ children, onRetry }: { children: React.ReactNode; onRetry: () => unknown }) {
  return (
    <Notice
      tone="error"
      actions={
        <Button size="sm" onClick={() => void onRetry()}>
          Try again
        </Button>
      }
    >
      {children}
    </Notice>
  );
}
