import { DomainError } from "../errors.js";

/** The error codes of MLflow's error body `{error_code, message}`. */
export type MlflowErrorCode =
  | "INVALID_PARAMETER_VALUE"
  | "BAD_REQUEST"
  | "MALFORMED_REQUEST"
  | "RESOURCE_ALREADY_EXISTS"
  | "RESOURCE_DOES_NOT_EXIST"
  | "ENDPOINT_NOT_FOUND"
  | "UNAUTHENTICATED"
  | "PERMISSION_DENIED"
  | "REQUEST_LIMIT_EXCEEDED"
  | "INVALID_STATE"
  | "INTERNAL_ERROR"
  | "TEMPORARILY_UNAVAILABLE";

/**
 * MLflow's error codes and the HTTP status MLflow's server answers each with, so the real client
 * raises the exceptions its users catch (docs/api.md, "MLflow's REST API"). A code without a
 * status does not compile.
 */
export const MLFLOW_ERROR_STATUS: Record<MlflowErrorCode, number> = {
  INVALID_PARAMETER_VALUE: 400,
  BAD_REQUEST: 400,
  MALFORMED_REQUEST: 400,
  RESOURCE_ALREADY_EXISTS: 400,
  RESOURCE_DOES_NOT_EXIST: 404,
  ENDPOINT_NOT_FOUND: 404,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  REQUEST_LIMIT_EXCEEDED: 429,
  INVALID_STATE: 500,
  INTERNAL_ERROR: 500,
  TEMPORARILY_UNAVAILABLE: 503,
};

export class MlflowError extends Error {
  constructor(
    readonly errorCode: MlflowErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "MlflowError";
  }

  get status(): number {
    return MLFLOW_ERROR_STATUS[this.errorCode];
  }
}

/** Runs a Stepwise rule in MLflow's words: its INVALID_INPUT is MLflow's INVALID_PARAMETER_VALUE, with the same message. */
export function inMlflowTerms<T>(rule: () => T): T {
  try {
    return rule();
  } catch (error) {
    throw error instanceof DomainError && error.code === "INVALID_INPUT" ? invalidParameter(error.message) : error;
  }
}

export const invalidParameter = (message: string) => new MlflowError("INVALID_PARAMETER_VALUE", message);
export const doesNotExist = (message: string) => new MlflowError("RESOURCE_DOES_NOT_EXIST", message);
