"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.captureStackTrace = captureStackTrace;
function captureStackTrace(below) {
    const object = { stack: "" };
    Error.captureStackTrace(object, below || captureStackTrace);
    return object.stack.split("\n").slice(1);
}
