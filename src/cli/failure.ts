/** A command that cannot do its work: the program prints the message alone (no stack trace) and exits 1. */
export class CliFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliFailure';
  }
}
