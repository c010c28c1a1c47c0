/**
 * What assignd's two JVM clients share: the leader-side assignors for
 * kafka-clients ({@code dev.assignd.kafka}) and the KIP-848 broker plugin
 * ({@code dev.assignd.kafka.broker}). The channel to assignd and its TLS
 * ({@link dev.assignd.common.Channels}, {@link dev.assignd.common.ChannelSettings}),
 * the user agent ({@link dev.assignd.common.UserAgent}), what a failed call
 * means ({@link dev.assignd.common.Diagnosis}) and the counts of served and
 * fallen-back assignments ({@link dev.assignd.common.Outcomes}). Not an API
 * for applications.
 */
package dev.assignd.common;
