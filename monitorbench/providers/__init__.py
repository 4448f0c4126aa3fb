"""Language-model providers behind one :class:`ChatModel` interface, plus the response cache."""

from monitorbench.providers.base import ChatModel, Message, ModelError, Reply, Sampling
from monitorbench.providers.cache import CachedChatModel, ResponseCache, response_key
from monitorbench.providers.factory import make_chat_model

__all__ = ["ChatModel", "Message", "ModelError", "Reply", "Sampling", "CachedChatModel",
           "ResponseCache", "response_key", "make_chat_model"]
