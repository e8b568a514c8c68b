// Package reqctx carries, in an HTTP request's context, what the code
// around the router tells it, or hears from it, without either side
// importing the other: a rate limit's remaining budget (middleware.RateLimit
// to the transport, for each message of a batch), a request log's sink
// (the router to middleware.RequestLog) and the mark of a request built in
// this process (package direct to the transport).
package reqctx
