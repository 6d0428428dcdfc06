// The runs table and the charts side by side (a wide window): the share of the width the table
// takes, set by dragging the splitter between them (or its arrow keys), and whether the charts are
// shown at all. Kept in this browser, the same for every project.

import { useStoredState } from "../../hooks.ts";

export interface Split {
  /** The table's share of the width, 0.2 to 0.8. */
  tableShare: number;
  chartsHidden: boolean;
}

const DEFAULT_SPLIT: Split = { tableShare: 0.36, chartsHidden: false };
const clampShare = (share: number) => Math.min(0.8, Math.max(0.2, share));

/** The stored split, or the default for whatever part of it is missing or malformed. */
export function useSplit(): [Split, (split: Split) => void] {
  const [stored, setStored] = useStoredState<unknown>("stepwise.split", null);
  const record = typeof stored === "object" && stored !== null ? (stored as Record<string, unknown>) : {};
  const split = {
    tableShare:
      typeof record.tableShare === "number" && Number.isFinite(record.tableShare)
        ? clampShare(record.tableShare)
        : DEFAULT_SPLIT.tableShare,
    chartsHidden: record.chartsHidden === true,
  };
  return [split, setStored];
}

/** The bar between the panes: drag it, or focus it and use the arrow keys. */
export function Splitter({ split, onSplit }: { split: Split; onSplit: (split: Split) => void }) {
  const onPointerDown = (event: PointerEvent) => {
    event.preventDefault();
    const layout = (event.currentTarget as HTMLElement).parentElement!.getBoundingClientRect();
    const move = (moved: PointerEvent) => onSplit({ ...split, tableShare: clampShare((moved.clientX - layout.left) / layout.width) });
    const up = () => {
      removeEventListener("pointermove", move);
      removeEventListener("pointerup", up);
      document.body.classList.remove("resizing");
    };
    addEventListener("pointermove", move);
    addEventListener("pointerup", up);
    document.body.classList.add("resizing"); // no text selection while dragging
  };
  const onKeyDown = (event: KeyboardEvent) => {
    const step = event.key === "ArrowLeft" ? -0.05 : event.key === "ArrowRight" ? 0.05 : 0;
    if (step === 0) return;
    event.preventDefault();
    onSplit({ ...split, tableShare: clampShare(split.tableShare + step) });
  };
  return (
    <div
      class="runs-splitter"
      role="separator"
      aria-orientation="vertical"
      aria-label="Width of the table and the charts"
      aria-valuemin={20}
      aria-valuemax={80}
      aria-valuenow={Math.round(split.tableShare * 100)}
      tabIndex={0}
      data-testid="runs-splitter"
      onPointerDown={onPointerDown}
      onKeyDown={onKeyDown}
    />
  );
}
