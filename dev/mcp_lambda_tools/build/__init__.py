"""Make build: stage one business's Lambda code, compile its manifest, skills and tool schemas, check the
package and its size."""
