// The footer-thread pool's entry for the rest of the repo (cli/, activities/, bench/), so importers
// need not know the layout of threads/, where the pool lives.
export { FooterThreads, footerThreadStart, footerThreadsOnEveryCpu, sharedFooterThreads, startFooterThread } from './threads';
