// What a listing of a table's locations reports besides its data files: the coded findings a
// metadata-only migration would otherwise lose or misread (docs/design/iceberg-spec.md §9.6). Pure;
// the listing itself is adapters/storage/list-partition.ts.

export const ListingFindingCode = {
  /** A non-hidden sub-directory of a partition location; its files are not imported (non-recursive). */
  LISTING_SUBDIRECTORY: 'LISTING_SUBDIRECTORY',
  /** A zero-byte file; excluded from the data files. */
  LISTING_EMPTY_FILE: 'LISTING_EMPTY_FILE',
  /** A location with no data files (missing, empty, or only hidden/empty files). */
  LISTING_EMPTY_LOCATION: 'LISTING_EMPTY_LOCATION',
} as const;
export type ListingFindingCode = (typeof ListingFindingCode)[keyof typeof ListingFindingCode];

export interface ListingFinding {
  readonly code: ListingFindingCode;
  readonly location: string;
  readonly path: string;
  readonly message: string;
}
