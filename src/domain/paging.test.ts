import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { takePage } from "./paging.js";

const sized = (sizes: number[]) => sizes.map((size, index) => ({ index, size }));
const page = (sizes: number[], limit: number, maxBytes: number, offset = 0) =>
  takePage(sized(sizes), { limit, offset, maxBytes }, (row) => row.size);

describe("takePage", () => {
  it("ends a page at the limit and says where the next one starts", () => {
    const first = page([1, 1, 1], 2, 100, 10);
    assert.deepEqual(
      first.items.map((row) => row.index),
      [0, 1],
    );
    assert.equal(first.nextOffset, 12);
    assert.equal(page([1, 1], 2, 100).nextOffset, null, "no row beyond the limit: this was the last page");
  });

  it("ends a page before the row that would pass the byte budget", () => {
    const first = page([4, 4, 4, 1], 10, 10);
    assert.deepEqual([first.items.length, first.nextOffset], [2, 2]);
    assert.deepEqual(page([5, 5], 10, 10).items.length, 2, "exactly the budget fits");
  });

  it("always holds one row, however large, so every row can be read back", () => {
    const first = page([50, 1], 10, 10);
    assert.deepEqual([first.items.length, first.nextOffset], [1, 1]);
    assert.deepEqual(page([], 10, 10), { items: [], nextOffset: null });
  });

  it("reads no row past the one that ends the page", () => {
    let read = 0;
    function* rows() {
      for (let i = 0; i < 100; i++) {
        read++;
        yield 1;
      }
    }
    takePage(rows(), { limit: 5, offset: 0, maxBytes: 100 }, (size) => size);
    assert.equal(read, 6);
  });
});
