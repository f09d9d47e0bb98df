"""Bilingual vocabulary of metadata values: kinds of document, reader levels, languages, tech nouns.

Self-query matches the values a user declared ("tutorial", "api_reference", "object-storage", "zh")
against a question in either language. Declared values are English words or ISO codes, so a Chinese
question needs its words in English: `zh_segments` finds the glossary terms of a Chinese text by
longest match and gives their English phrases ("操作指南" -> "how-to guide", "数据" -> "data"), and
`language_names` gives the names of an ISO 639-1 code in both languages ("ja" -> Japanese, 日文, 日语).
This is general vocabulary of documentation sites and software (the words such metadata is made
of), not the values of any one schema; the other glossary (`glossary.py`) covers question words.
"""

from __future__ import annotations

import re
from functools import lru_cache

# ISO 639-1 code -> names (English first, then Chinese).
LANGUAGES: dict[str, tuple[str, ...]] = {
    "en": ("English", "英文", "英语"), "zh": ("Chinese", "Mandarin", "中文", "汉语", "简体中文", "华语"),
    "ja": ("Japanese", "日文", "日语"), "de": ("German", "德文", "德语"), "fr": ("French", "法文", "法语"),
    "es": ("Spanish", "西班牙文", "西班牙语"), "pt": ("Portuguese", "葡萄牙文", "葡萄牙语"),
    "ru": ("Russian", "俄文", "俄语"), "ko": ("Korean", "韩文", "韩语", "朝鲜语"), "it": ("Italian", "意大利文", "意大利语"),
    "ar": ("Arabic", "阿拉伯文", "阿拉伯语"), "hi": ("Hindi", "印地语"), "nl": ("Dutch", "荷兰文", "荷兰语"),
    "vi": ("Vietnamese", "越南文", "越南语"), "th": ("Thai", "泰文", "泰语"), "tr": ("Turkish", "土耳其语"),
    "pl": ("Polish", "波兰语"), "sv": ("Swedish", "瑞典语"), "id": ("Indonesian", "印尼语", "印度尼西亚语"),
}

# Chinese term -> English phrases, by theme. Longer terms win over their parts when segmenting.
_KINDS = {
    "教程": ("tutorial",), "教学": ("tutorial", "teaching"), "指南": ("guide",), "操作指南": ("how-to guide",),
    "使用指南": ("user guide", "guide"), "用户指南": ("user guide",), "入门指南": ("getting started guide",),
    "快速入门": ("quickstart", "getting started"), "手册": ("manual", "handbook"), "文档": ("documentation", "docs"),
    "参考": ("reference",), "参考文档": ("reference",), "参考手册": ("reference manual",), "接口": ("api", "interface"),
    "说明": ("explanation", "instructions"), "发布说明": ("release notes",), "发行说明": ("release notes",),
    "版本说明": ("release notes",), "更新日志": ("changelog",), "变更日志": ("changelog",), "博客": ("blog",),
    "博文": ("blog post",), "博客文章": ("blog post",), "技术博客": ("tech blog", "blog"), "帖子": ("post",), "文章": ("article",), "论文": ("paper",), "报告": ("report",),
    "白皮书": ("whitepaper", "white paper"), "案例": ("case", "example"), "案例研究": ("case study",),
    "案例分析": ("case study",), "客户案例": ("customer story", "case study"), "常见问题": ("faq", "frequently asked questions"),
    "常见问题解答": ("faq",), "问答": ("q&a", "faq"), "视频": ("video",), "录像": ("recording", "video"),
    "网络研讨会": ("webinar",), "演示": ("demo",), "幻灯片": ("slides",), "书": ("book",), "书籍": ("book",),
    "新闻": ("news",), "公告": ("announcement",), "示例": ("example", "sample"), "样例": ("sample", "example"),
    "范例": ("example",), "代码": ("code",), "源代码": ("source code",), "代码片段": ("snippet",), "课程": ("course",),
    "讲解": ("walkthrough", "explanation"), "概述": ("overview",), "概览": ("overview",), "概念": ("concept",),
    "术语表": ("glossary",), "故障排除": ("troubleshooting",), "故障排查": ("troubleshooting",), "排错": ("troubleshooting",),
    "最佳实践": ("best practice",), "规范": ("specification",), "规格": ("specification",), "模板": ("template",),
    "页面": ("page",), "资料": ("material",), "内容": ("content",), "路线图": ("roadmap",), "词典": ("dictionary",),
}
_LEVELS = {
    "入门": ("beginner", "introductory", "getting started"), "初级": ("beginner", "basic"), "初学者": ("beginner",),
    "新手": ("beginner", "novice"), "基础": ("basic", "fundamentals"), "中级": ("intermediate",),
    "进阶": ("advanced", "intermediate"), "高级": ("advanced",), "深入": ("in-depth", "advanced"), "专家": ("expert",),
    "简单": ("easy", "simple"), "困难": ("hard", "difficult"), "难度": ("difficulty",),
}
_TECH = {
    "对象": ("object",), "存储": ("storage",), "对象存储": ("object storage",), "块存储": ("block storage",),
    "文件存储": ("file storage",), "无服务器": ("serverless",), "函数": ("function",), "计算": ("compute",),
    "虚拟机": ("virtual machine", "vm"), "容器": ("container",), "集群": ("cluster",), "服务": ("service",),
    "数据": ("data",), "数据库": ("database",), "仓库": ("warehouse", "repository"), "数据仓库": ("data warehouse",),
    "数据湖": ("data lake",), "消息": ("message", "messaging"), "队列": ("queue",), "消息队列": ("message queue",),
    "流": ("stream",), "流处理": ("stream processing",), "身份": ("identity",), "访问": ("access",),
    "权限": ("permission", "access"), "访问控制": ("access control",), "身份认证": ("authentication",),
    "认证": ("authentication",), "鉴权": ("authorization", "authentication"), "授权": ("authorization",),
    "登录": ("login", "sign-in"), "单点登录": ("single sign-on", "sso"), "密钥": ("key",), "证书": ("certificate",),
    "部署": ("deployment", "deploy"), "发布": ("release", "publish"), "监控": ("monitoring",), "告警": ("alerting",),
    "日志": ("logging", "log"), "计费": ("billing",), "账单": ("billing", "bill"), "价格": ("pricing", "price"),
    "定价": ("pricing",), "费用": ("cost", "billing"), "成本": ("cost",), "网络": ("networking", "network"),
    "安全": ("security",), "性能": ("performance",), "调优": ("tuning",), "优化": ("optimization",),
    "迁移": ("migration",), "备份": ("backup",), "恢复": ("recovery", "restore"), "扩展": ("scaling", "extension"),
    "伸缩": ("scaling",), "弹性": ("elastic", "scaling"), "负载均衡": ("load balancing", "load balancer"),
    "网关": ("gateway",), "域名": ("domain",), "缓存": ("cache", "caching"), "搜索": ("search",), "分析": ("analytics", "analysis"),
    "机器学习": ("machine learning",), "人工智能": ("artificial intelligence", "ai"), "模型": ("model",),
    "管道": ("pipeline",), "流水线": ("pipeline",), "工作流": ("workflow",), "事件": ("event",), "通知": ("notification",),
    "邮件": ("email",), "支付": ("payment",), "用户": ("user",), "账户": ("account",), "账号": ("account",),
    "角色": ("role",), "策略": ("policy",), "配额": ("quota",), "区域": ("region",), "可用区": ("availability zone",),
    "控制台": ("console",), "命令行": ("command line", "cli"), "开发工具包": ("sdk",), "集成": ("integration",),
    "测试": ("testing",), "调试": ("debugging",), "安装": ("installation",), "配置": ("configuration",),
    "升级": ("upgrade",), "兼容性": ("compatibility",), "可观测性": ("observability",), "合规": ("compliance",),
    "加密": ("encryption",), "隐私": ("privacy",), "移动": ("mobile",), "移动端": ("mobile",), "桌面": ("desktop",),
    "网页": ("web",), "前端": ("frontend",), "后端": ("backend",), "开源": ("open source",), "免费": ("free",),
    "付费": ("paid",), "企业": ("enterprise",), "稳定": ("stable",), "测试版": ("beta",), "预览": ("preview",),
    "弃用": ("deprecated",), "已弃用": ("deprecated",), "实时": ("real-time",), "批处理": ("batch",),
    "语言": ("language",), "版本": ("version",), "平台": ("platform",), "硬件": ("hardware",), "软件": ("software",),
}


@lru_cache(maxsize=1)
def _table() -> dict[str, tuple[str, ...]]:
    table: dict[str, tuple[str, ...]] = {}
    for part in (_KINDS, _LEVELS, _TECH):
        for zh, en in part.items():
            table[zh] = tuple(dict.fromkeys([*table.get(zh, ()), *en]))
    for names in LANGUAGES.values():
        for zh in names[1:]:
            if re.search(r"[\u3400-\u9fff]", zh):
                table[zh] = (names[0],)
    return table


def language_names(code: str) -> tuple[str, ...]:
    """Names of an ISO 639-1 language code in English and Chinese (empty for an unknown code)."""
    return LANGUAGES.get(code.lower(), ())


def zh_segments(text: str) -> list[tuple[int, int, tuple[str, ...]]]:
    """Glossary terms of a Chinese text, longest first at each position: (start, end, English phrases)."""
    table = _table()
    longest = max(map(len, table))
    out: list[tuple[int, int, tuple[str, ...]]] = []
    for m in re.finditer(r"[\u3400-\u9fff]+", text):
        run, base, i = m.group(), m.start(), 0
        while i < len(run):
            for size in range(min(longest, len(run) - i), 0, -1):
                if run[i:i + size] in table:
                    out.append((base + i, base + i + size, table[run[i:i + size]]))
                    i += size
                    break
            else:
                i += 1
    return out
