export const CONSOLE_LOG_TYPES = ["INFO", "ERROR", "WARNING", "DEBUG", "PRINT"] as const;
export type ConsoleLogType = (typeof CONSOLE_LOG_TYPES)[number];
