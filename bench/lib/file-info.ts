/** A distribution file the bench's upstream serves: where it is on disk and what the index says of it. */
export interface FileInfo {
  project: string;
  filename: string;
  path: string;
  size: number;
  sha256: string;
}
