/**
 * An error the emulator answers on purpose, in the live service's body shape:
 * `{"message": "...", "errors": {"code": <status>, "message": "...", "details": ...}}`.
 * Anything else reaching the error handler is a bug and becomes a 500.
 */
export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  constructor(
    readonly status: number,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }

  body(): { message: string; errors: { code: number; message: string; details: unknown } } {
    return { message: this.message, errors: { code: this.status, message: this.message, details: this.details ?? '' } };
  }
}

/** A field-level problem, as listed in `errors.details` of a 422. */
export interface FieldProblem {
  /** dotted path into the body or query, e.g. `individual_steps.2.step_group_id`; `(body)` for the whole */
  field: string;
  message: string;
}

/** 404 as the live service words it: `errors.details` `"<entity> not found with ID: <id>"`. */
export function notFound(what: string, id?: string): ServiceError {
  return new ServiceError(404, `${what} not found`, id === undefined ? undefined : `${what} not found with ID: ${id}`);
}

/** 422 naming one field. */
export function invalidField(field: string, message: string): ServiceError {
  return new ServiceError(422, `Invalid request: ${field}: ${message}`, [{ field, message }] satisfies FieldProblem[]);
}
