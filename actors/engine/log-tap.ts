import { Subject, type Observable } from 'rxjs';

/**
 * The node's log lines as they are written (JSON, secrets already redacted), for live
 * readers such as the Clash `/logs` stream. With no reader a line costs one check.
 */
export class LogTap {
  private readonly subject = new Subject<string>();
  readonly lines$: Observable<string> = this.subject.asObservable();

  /** pino's streamWrite hook: passes the line on unchanged. */
  readonly hook = (line: string): string => {
    if (this.subject.observed) this.subject.next(line);
    return line;
  };
}
