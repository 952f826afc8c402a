'use client';

import { useRef, useState } from 'react';

/** Files are being dragged (not text or a link from the page). */
function carriesFiles(e: React.DragEvent): boolean {
  return Array.from(e.dataTransfer.types).includes('Files');
}

/**
 * Makes an element a drop target for files: `over` while files are dragged onto it (for a visible
 * target), `onFiles` with what was dropped. Entering a child fires dragleave on the parent first,
 * so entries and exits are counted rather than trusted one by one.
 */
export function useFileDrop(onFiles: (files: File[]) => void) {
  const [over, setOver] = useState(false);
  const depth = useRef(0);
  const targetProps = {
    onDragEnter(e: React.DragEvent) {
      if (!carriesFiles(e)) return;
      e.preventDefault();
      depth.current += 1;
      setOver(true);
    },
    onDragOver(e: React.DragEvent) {
      if (!carriesFiles(e)) return;
      // Without this the browser opens the file instead of letting it drop here.
      e.preventDefault();
      e.dataTransfer.dropEffect = 'copy';
    },
    onDragLeave(e: React.DragEvent) {
      if (!carriesFiles(e)) return;
      depth.current = Math.max(0, depth.current - 1);
      if (depth.current === 0) setOver(false);
    },
    onDrop(e: React.DragEvent) {
      if (!carriesFiles(e)) return;
      e.preventDefault();
      depth.current = 0;
      setOver(false);
      onFiles(Array.from(e.dataTransfer.files));
    },
  };
  return { over, targetProps };
}
