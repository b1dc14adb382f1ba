// A "server" that reads its stdin and never answers: the runner must give up
// after --server-timeout-ms and exit 3.
process.stdin.resume()
setInterval(() => {}, 1000)
