//! Every connection's bytes pass through `edihub_as2::obs_fold::RequestHeads` before
//! hyper reads them: AS2 software folds long header lines, and hyper refuses folded
//! heads (400) where RFC 7230 lets a server unfold them.

use edihub_as2::obs_fold::RequestHeads;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// A connection whose request heads are unfolded before hyper reads them.
pub(crate) struct Unfolding<S> {
    inner: S,
    heads: RequestHeads,
    /// Unfolded bytes not yet handed to hyper, from `ready_from`.
    ready: Vec<u8>,
    ready_from: usize,
    eof: bool,
}

impl<S> Unfolding<S> {
    pub fn new(inner: S, max_head_bytes: usize) -> Self {
        Self {
            inner,
            heads: RequestHeads::new(max_head_bytes),
            ready: Vec::new(),
            ready_from: 0,
            eof: false,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Unfolding<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            if this.ready_from < this.ready.len() {
                let n = buf.remaining().min(this.ready.len() - this.ready_from);
                buf.put_slice(&this.ready[this.ready_from..this.ready_from + n]);
                this.ready_from += n;
                return Poll::Ready(Ok(()));
            }
            if this.eof {
                return Poll::Ready(Ok(()));
            }
            // Body bytes that fill hyper's whole buffer go straight into it: nothing to
            // rewrite there. A body's last bytes take the path below, which finds where
            // the next request's head starts.
            let room = buf.remaining() as u64;
            if room > 0 && this.heads.verbatim().is_some_and(|n| n >= room) {
                let before = buf.filled().len();
                ready!(Pin::new(&mut this.inner).poll_read(cx, buf))?;
                let read = buf.filled().len() - before;
                this.heads.passed(read);
                this.eof = read == 0;
                return Poll::Ready(Ok(()));
            }
            let mut chunk = [0u8; 16 * 1024];
            let mut read = ReadBuf::new(&mut chunk);
            ready!(Pin::new(&mut this.inner).poll_read(cx, &mut read))?;
            let filled = read.filled();
            let out = if filled.is_empty() {
                this.eof = true;
                this.heads.finish()
            } else {
                let out = this.heads.push(filled);
                if out.unfolded > 0 {
                    tracing::debug!(folds = out.unfolded, "folded request header lines unfolded");
                }
                out.bytes
            };
            this.ready = out;
            this.ready_from = 0;
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Unfolding<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}
